/** A second gateway process beside the one `make up` started: two replicas sharing PostgreSQL and Redis. */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

export interface Replica {
  baseUrl: string;
  stop(): Promise<void>;
}

export async function startSecondGateway(port = 4010, opsPort = 9410): Promise<Replica> {
  const child: ChildProcess = spawn(process.execPath, ['dist/main.js'], {
    cwd: path.join(__dirname, '..', '..', 'services', 'gateway'),
    env: { ...process.env, HTTP_PORT: String(port), OPS_PORT: String(opsPort), LOG_LEVEL: 'warn', OTEL_SDK_DISABLED: 'true' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      if ((await fetch(`http://127.0.0.1:${opsPort}/readyz`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline || child.exitCode !== null) throw new Error('second gateway did not start');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
