/**
 * One service as its own process (the built dist), beside the stack `make
 * up` started: replicas, crash tests. Ready once `/readyz` on its ops port
 * answers 200; its output goes to `.data/logs/<log name>.log`.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.join(__dirname, '..', '..');

export { freePort } from './ports';

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

/** The last `lines` lines of a log file, for an error that points at it. */
function logTail(logFile: string, lines = 15): string {
  try {
    return fs.readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/**
 * Starts `services/<name>/dist/main.js` with the environment plus `env`
 * (which must set OPS_PORT) and waits for /readyz. A process that exits
 * while starting is started once more, as an orchestrator would restart it,
 * and what its log said is printed; a second exit, or no readiness within
 * the timeout, fails with the log's last lines in the error.
 */
export async function startServiceProcess(name: ServiceName, env: Record<string, string>, options: ServiceProcessOptions = {}): Promise<ServiceProcess> {
  const logFile = path.join(ROOT, '.data', 'logs', `${options.logName ?? `test-${name}`}.log`);
  try {
    return await startOnce(name, env, logFile, options.timeoutMs ?? 30_000);
  } catch (error) {
    if (!(error instanceof ExitedWhileStarting)) throw error;
    console.warn(`${error.message}\nStarting it once more.`);
    return await startOnce(name, env, logFile, options.timeoutMs ?? 30_000);
  }
}

class ExitedWhileStarting extends Error {}

async function startOnce(name: ServiceName, env: Record<string, string>, logFile: string, timeoutMs: number): Promise<ServiceProcess> {
  const opsPort = Number(env.OPS_PORT);
  if (!opsPort) throw new Error('OPS_PORT is required');
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
    const hasExited = child.exitCode !== null || child.signalCode !== null;
    if (hasExited || Date.now() > deadline) {
      await end('SIGKILL');
      const why = hasExited ? `exited with ${child.exitCode ?? child.signalCode} while starting` : `was not ready within ${timeoutMs} ms`;
      const message = `${name} (ops port ${opsPort}) ${why}; ${path.relative(ROOT, logFile)} ended:\n${logTail(logFile)}`;
      throw hasExited ? new ExitedWhileStarting(message) : new Error(message);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { name, pid: child.pid!, opsUrl, ready, stop: () => end('SIGTERM'), kill: () => end('SIGKILL') };
}
