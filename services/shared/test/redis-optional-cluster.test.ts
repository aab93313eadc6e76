/**
 * An optional Redis (a service that goes on without it, as orders does for
 * its join counts) must answer quickly when Redis is gone, on a cluster as
 * on one Redis, rather than hold each command until Redis comes back. A
 * cluster client queues commands at the cluster level, where no command
 * timeout applies, while it has no ready cluster. A cluster that loses
 * every node does not take it there: the client stays ready and each
 * node's connection reconnects by itself, failing a command after its
 * bounded retries or the optional client's command timeout, whichever
 * comes first. This suite holds that, and that the same client answers
 * again once the nodes return.
 *
 * The cluster here is the test's own (three masters of Debian's
 * redis-server on free ports, in a temporary folder), so killing every
 * node leaves the shared test Redis alone.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createLogger } from '../src/logger';
import { OPTIONAL_REDIS_COMMAND_TIMEOUT_MS, ServiceRuntime } from '../src/runtime';
import type { RedisClient } from '../src/redis';
import { waitFor } from './support';

jest.setTimeout(60_000);

const logger = createLogger('redis-optional-cluster-test', 'silent');

const portFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });

/** Three ports whose cluster bus ports (+10000) are free too. */
async function freePorts(): Promise<number[]> {
  for (;;) {
    const base = 21_000 + Math.floor(Math.random() * 9_000);
    const ports = [base, base + 1, base + 2];
    const free = await Promise.all(ports.flatMap((port) => [portFree(port), portFree(port + 10_000)]));
    if (free.every(Boolean)) return ports;
  }
}

let folder: string;
let ports: number[];
let nodes: ChildProcess[] = [];

/** Starts the three nodes; a node restarted finds its place in the cluster in its nodes file. */
async function startNodes(): Promise<void> {
  nodes = ports.map((port) =>
    spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--dir', folder, '--cluster-enabled', 'yes', '--cluster-config-file', `nodes-${port}.conf`,
        '--cluster-node-timeout', '2000', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    ),
  );
  await waitFor(async () => (await Promise.all(ports.map(portFree))).every((free) => !free), 10_000, 'the three nodes listening');
}

const clusterOk = (port: number) => /cluster_state:ok/.test(spawnSync('redis-cli', ['-h', '127.0.0.1', '-p', String(port), 'cluster', 'info'], { encoding: 'utf8' }).stdout ?? '');

beforeAll(async () => {
  folder = mkdtempSync(path.join(tmpdir(), 'redis-optional-cluster-'));
  ports = await freePorts();
  await startNodes();
  const created = spawnSync('redis-cli', ['--cluster', 'create', ...ports.map((port) => `127.0.0.1:${port}`), '--cluster-replicas', '0', '--cluster-yes'], { encoding: 'utf8' });
  if (created.status !== 0) throw new Error(`redis-cli --cluster create failed: ${created.stdout}${created.stderr}`);
  await waitFor(() => ports.every(clusterOk), 20_000, 'the cluster formed');
});

afterAll(() => {
  for (const node of nodes) node.kill('SIGKILL');
  rmSync(folder, { recursive: true, force: true });
});

test('a command of an optional cluster client fails within a second once every node is gone, and the client answers again when they return', async () => {
  const runtime = new ServiceRuntime('redis-optional-cluster-test', { BIND_HOST: '127.0.0.1', OPS_PORT: 0, LOG_LEVEL: 'silent' }, logger);
  const redis: RedisClient = runtime.redis({ REDIS_URL: `redis+cluster://${ports.map((port) => `127.0.0.1:${port}`).join(',')}` }, { optional: true });
  try {
    await redis.set('{k}one', 'alive');
    expect(await redis.get('{k}one')).toBe('alive');

    await Promise.all(nodes.map((node) => new Promise((resolve) => node.once('exit', resolve).kill('SIGKILL'))));
    // Long enough for several reconnection attempts of every node's connection.
    await new Promise((resolve) => setTimeout(resolve, 2_000));

    const started = performance.now();
    const outcome = await Promise.race([
      redis.get('{k}one').then(
        () => 'answered',
        () => 'failed',
      ),
      new Promise<string>((resolve) => setTimeout(() => resolve('still waiting'), 5_000).unref()),
    ]);
    expect(outcome).toBe('failed');
    expect(performance.now() - started).toBeLessThan(OPTIONAL_REDIS_COMMAND_TIMEOUT_MS + 1_000);

    // Back (empty, as nothing was persisted): the same client answers again.
    await startNodes();
    await waitFor(() => ports.every(clusterOk), 20_000, 'the cluster formed again');
    await waitFor(async () => (await redis.set('{k}two', 'back').catch(() => null)) === 'OK', 20_000, 'the client to answer again');
    expect(await redis.get('{k}two')).toBe('back');
  } finally {
    redis.disconnect();
  }
});
