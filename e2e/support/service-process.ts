/**
 * One service as its own process (the built dist), beside the stack `make
 * up` started: replicas, crash tests. Ready once `/readyz` on its ops port
 * answers 200; its output goes to `.data/logs/<log name>.log`.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';

const ROOT = path.join(__dirname, '..', '..');

/**
 * A loopback port nothing listens on, from the OS. Test processes take their
 * gRPC ports from here: a fixed port in the ephemeral range (32768–60999)
 * can be the local end of any outgoing connection when the process starts.
 */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export type ServiceName = 'gateway' | 'inventory' | 'orders' | 'tickets' | 'webhooks';

export interface ServiceProcess {
  readonly name: ServiceName;
  readonly pid: number;
  readonly opsUrl: string;
  /** Whether `/readyz` answers 200 right now. */
  ready(): Promise<boolean>;
  /** SIGTERM and wait for the exit (a drained shutdown). */
  stop(): Promise<void>;
  /** SIGKILL: the process dies where it stands. */
  kill(): Promise<void>;
}

export interface ServiceProcessOptions {
  /** How long the process may take to report ready. */
  timeoutMs?: number;
  /** The log file's name under .data/logs, without `.log` (default: `test-<name>`). */
  logName?: string;
}

/** Starts `services/<name>/dist/main.js` with the environment plus `env` (which must set OPS_PORT) and waits for /readyz. */
export async function startServiceProcess(name: ServiceName, env: Record<string, string>, options: ServiceProcessOptions = {}): Promise<ServiceProcess> {
  const opsPort = Number(env.OPS_PORT);
  if (!opsPort) throw new Error('OPS_PORT is required');
  const timeoutMs = options.timeoutMs ?? 30_000;
  const logFile = path.join(ROOT, '.data', 'logs', `${options.logName ?? `test-${name}`}.log`);
  fs.mkdirSync(path.dirname(logFile), { recursive: true });
  const log = fs.openSync(logFile, 'a');
  const child = (() => {
    try {
      return spawn(process.execPath, ['dist/main.js'], {
        cwd: path.join(ROOT, 'services', name),
        env: { ...process.env, LOG_LEVEL: 'warn', OTEL_SDK_DISABLED: 'true', ...env },
        stdio: ['ignore', log, log],
      });
    } finally {
      fs.closeSync(log); // the child has its own copy
    }
  })();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const end = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  const opsUrl = `http://127.0.0.1:${opsPort}`;
  const ready = async () => {
    try {
      return (await fetch(`${opsUrl}/readyz`, { signal: AbortSignal.timeout(2_000) })).ok;
    } catch {
      return false; // not listening yet
    }
  };

  const deadline = Date.now() + timeoutMs;
  while (!(await ready())) {
    if (child.exitCode !== null || child.signalCode !== null || Date.now() > deadline) {
      const why = child.exitCode !== null ? `exited with ${child.exitCode}` : `was not ready within ${timeoutMs} ms`;
      await end('SIGKILL');
      throw new Error(`${name} (ops port ${opsPort}) ${why}; see ${path.relative(ROOT, logFile)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { name, pid: child.pid!, opsUrl, ready, stop: () => end('SIGTERM'), kill: () => end('SIGKILL') };
}
