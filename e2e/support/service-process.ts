/** One service as its own process (the built dist), beside the stack `make up` started: replicas, crash tests. */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

export type ServiceName = 'gateway' | 'inventory' | 'orders' | 'tickets' | 'webhooks';

export interface ServiceProcess {
  readonly name: ServiceName;
  readonly pid: number;
  /** SIGTERM and wait for the exit (a drained shutdown). */
  stop(): Promise<void>;
  /** SIGKILL: the process dies where it stands. */
  kill(): Promise<void>;
}

async function waitReady(child: ChildProcess, opsPort: number, name: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if ((await fetch(`http://127.0.0.1:${opsPort}/readyz`)).ok) return;
    } catch {
      // not listening yet
    }
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode} before it was ready`);
    if (Date.now() > deadline) throw new Error(`${name} was not ready on ops port ${opsPort} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Starts `services/<name>/dist/main.js` with the environment plus `env` (which must set OPS_PORT) and waits for /readyz. */
export async function startServiceProcess(name: ServiceName, env: Record<string, string>, timeoutMs = 30_000): Promise<ServiceProcess> {
  const opsPort = Number(env.OPS_PORT);
  if (!opsPort) throw new Error('OPS_PORT is required');
  const child = spawn(process.execPath, ['dist/main.js'], {
    cwd: path.join(__dirname, '..', '..', 'services', name),
    env: { ...process.env, LOG_LEVEL: 'warn', OTEL_SDK_DISABLED: 'true', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const end = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  try {
    await waitReady(child, opsPort, name, timeoutMs);
  } catch (error) {
    await end('SIGKILL');
    throw error;
  }
  return { name, pid: child.pid!, stop: () => end('SIGTERM'), kill: () => end('SIGKILL') };
}
