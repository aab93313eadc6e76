/** A second gateway process beside the one `make up` started: two replicas sharing PostgreSQL and Redis. */
import { startServiceProcess } from './service-process';

export interface Replica {
  baseUrl: string;
  stop(): Promise<void>;
}

/** `env`: settings of this replica's own (TRUST_PROXY for one behind a proxy). */
export async function startSecondGateway(port = 4010, opsPort = 9410, env: Record<string, string> = {}): Promise<Replica> {
  const gateway = await startServiceProcess('gateway', { HTTP_PORT: String(port), OPS_PORT: String(opsPort), GRPC_PORT: '0', ...env }, { logName: 'second-gateway' });
  return { baseUrl: `http://127.0.0.1:${port}`, stop: () => gateway.stop() };
}
