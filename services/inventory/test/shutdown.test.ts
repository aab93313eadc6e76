import { spawn } from 'node:child_process';
import path from 'node:path';

/** A built inventory process, started the way `make up` starts it. */
function startProcess(opsPort: number) {
  return spawn(process.execPath, ['--require', '@partner-api/shared/telemetry/register', 'dist/main.js'], {
    cwd: path.join(__dirname, '..'),
    env: { ...process.env, GRPC_PORT: String(opsPort + 1000), OPS_PORT: String(opsPort), LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

async function readyStatus(port: number): Promise<number> {
  try {
    return (await fetch(`http://127.0.0.1:${port}/readyz`)).status;
  } catch {
    return 0;
  }
}

describe('a service process', () => {
  it('serves metrics, then drains and exits 0 on SIGTERM', async () => {
    const opsPort = 19401;
    const child = startProcess(opsPort);
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const deadline = Date.now() + 30_000;
    while ((await readyStatus(opsPort)) !== 200) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`never ready:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const metrics = await (await fetch(`http://127.0.0.1:${opsPort}/metrics`)).text();
    expect(metrics).toContain('process_cpu_user_seconds_total');
    // The inventory's own gauges, read at scrape time from Redis and PostgreSQL.
    expect(metrics).toMatch(/^inventory_redis_gate_open\{service="inventory"\} 1$/m);
    expect(metrics).toMatch(/^outbox_rows_waiting\{service="inventory"\} \d+$/m);
    expect(metrics).toMatch(/^outbox_oldest_age_seconds\{service="inventory"\} [\d.e+-]+$/m);

    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const messages = output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => (JSON.parse(line) as { msg: string }).msg);
    expect(messages).toEqual(expect.arrayContaining(['inventory started', 'shutting down: draining in-flight work', 'shutdown complete']));
    expect(messages.indexOf('shutdown complete')).toBeGreaterThan(messages.indexOf('shutting down: draining in-flight work'));
  }, 60_000);
});
