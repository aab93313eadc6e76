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
 * Run by `make test-redis-cluster`, which points REDIS_URL at the local
 * 3-master cluster and REDIS_CLUSTER_INFRA at the script that kills and
 * starts its nodes (deploy/local/redis.sh).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createLogger } from '../src/logger';
import { OPTIONAL_REDIS_COMMAND_TIMEOUT_MS, ServiceRuntime } from '../src/runtime';
import type { RedisClient } from '../src/redis';
import { waitFor } from './support';

jest.setTimeout(90_000);

const logger = createLogger('redis-optional-cluster-test', 'silent');
const run = promisify(execFile);

const infra = (...args: string[]) => {
  const script = process.env.REDIS_CLUSTER_INFRA;
  if (!script) throw new Error('REDIS_CLUSTER_INFRA is not set: run this suite with `make test-redis-cluster`');
  return run(script, args, { env: { ...process.env, REDIS_CLUSTER: '3' } });
};

const clusterUrl = process.env.REDIS_URL ?? '';
const ports = clusterUrl.replace(/^redis\+cluster:\/\//, '').split(',').map((node) => node.split(':')[1]!);
let nodesDown = false; // started again in afterAll if the test stops before it does

afterAll(async () => {
  if (nodesDown) await infra('start', 'redis');
}, 60_000); // restarting the cluster's nodes, after a failure that left them down

test('a command of an optional cluster client fails within a second once every node is gone, and the client answers again when they return', async () => {
  expect(clusterUrl).toMatch(/^redis\+cluster:\/\//);
  expect(ports).toHaveLength(3);
  const runtime = new ServiceRuntime('redis-optional-cluster-test', { BIND_HOST: '127.0.0.1', OPS_PORT: 0, LOG_LEVEL: 'silent' }, logger);
  const redis: RedisClient = runtime.redis({ REDIS_URL: clusterUrl }, { optional: true });
  try {
    await redis.set('{k}one', 'alive');
    expect(await redis.get('{k}one')).toBe('alive');

    nodesDown = true;
    for (const port of ports) await infra('kill', 'redis', port);
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

    // Back (empty, as nothing was persisted; the script waits for the cluster to form): the same client answers again.
    await infra('start', 'redis');
    nodesDown = false;
    await waitFor(async () => (await redis.set('{k}two', 'back').catch(() => null)) === 'OK', 20_000, 'the client to answer again');
    expect(await redis.get('{k}two')).toBe('back');
  } finally {
    redis.disconnect();
  }
});
