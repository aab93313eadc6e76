/**
 * A Redis Cluster client made by createRedis keeps its slot table fresh
 * while open and lets its process exit once quit, even when a refresh is in
 * flight at that moment (ioredis's own slotsRefreshInterval re-arms its
 * timer then, and the process runs on forever).
 *
 * Needs the 3-master cluster of `make test-redis-cluster`; it fails, rather
 * than skips, anywhere else.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { createRedis, isCluster, parseRedisTarget } from '../src/redis';

const clusterUrl = (): string => {
  const url = process.env.REDIS_URL ?? '';
  if (!url.includes('+cluster://')) throw new Error('REDIS_URL must name a Redis Cluster: run this suite with `make test-redis-cluster`');
  return url;
};

jest.setTimeout(30_000);

test('the slot table is refreshed at the interval asked for while the client is open', async () => {
  const redis = createRedis(parseRedisTarget(clusterUrl()), { cluster: { slotsRefreshInterval: 50 } });
  try {
    expect(isCluster(redis)).toBe(true);
    await redis.ping();
    let refreshes = 0;
    redis.on('refresh', () => (refreshes += 1));
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(refreshes).toBeGreaterThanOrEqual(3);
  } finally {
    await redis.quit();
  }
});

test('a process whose cluster clients were quit in the middle of a refresh exits by itself', async () => {
  const child = spawn(process.execPath, [path.join(__dirname, 'fixtures', 'cluster-quit.js')], {
    env: { ...process.env, REDIS_URL: clusterUrl() },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const stillRunning = new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), 10_000).unref());
  const outcome = await Promise.race([exited, stillRunning]);
  if (outcome === 'still running') child.kill('SIGKILL');
  expect({ outcome, output: output.trim() }).toEqual({ outcome: 0, output: 'closed' });
});
