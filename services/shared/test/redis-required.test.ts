/**
 * A Redis the service cannot work without (the gateway's rate limits and
 * idempotency keys, the dashboard's sessions): while it is away a command
 * must fail at once, so that a partner's request answers its error in
 * milliseconds instead of waiting out ioredis' reconnection attempts
 * (delays growing to 5 s, several per command). The real Redis is reached
 * through a loopback proxy this suite can cut, as a network partition or
 * a Redis that went away would.
 */
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { createLogger } from '../src/logger';
import { ServiceRuntime } from '../src/runtime';
import type { RedisClient } from '../src/redis';
import { waitFor } from './support';

const logger = createLogger('redis-required-test', 'silent');

/** A TCP proxy to the suite's Redis that can be cut (every connection closed, new ones refused) and restored on the same port. */
async function redisProxy(): Promise<{ url: string; cut(): Promise<void>; restore(): Promise<void>; close(): Promise<void> }> {
  const target = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:56379');
  const sockets = new Set<net.Socket>();
  const server = (): net.Server =>
    net.createServer((client) => {
      const upstream = net.connect(Number(target.port || 6379), target.hostname);
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        socket.on('error', () => socket.destroy());
      }
      client.pipe(upstream).pipe(client);
    });
  let listening = server();
  await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve));
  const port = (listening.address() as AddressInfo).port;
  const stop = async (): Promise<void> => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => listening.close(() => resolve()));
  };
  return {
    url: `redis://127.0.0.1:${port}${target.pathname}`,
    cut: stop,
    restore: async () => {
      listening = server();
      await new Promise<void>((resolve) => listening.listen(port, '127.0.0.1', resolve));
    },
    close: () => (listening.listening ? stop() : Promise.resolve()),
  };
}

/** The outcome of one command, and how long it took. */
async function timed(command: () => Promise<unknown>): Promise<{ outcome: string; ms: number }> {
  const started = performance.now();
  const outcome = await command().then(
    (value) => `answered ${String(value)}`,
    (error: Error) => `failed: ${error.message}`,
  );
  return { outcome, ms: performance.now() - started };
}

describe('a required Redis client (ServiceRuntime.redis)', () => {
  test('fails a command at once while its Redis is away, and answers again once it is back', async () => {
    const proxy = await redisProxy();
    const runtime = new ServiceRuntime('redis-required-test', { BIND_HOST: '127.0.0.1', OPS_PORT: 0, LOG_LEVEL: 'silent' }, logger);
    const redis: RedisClient = runtime.redis({ REDIS_URL: proxy.url });
    try {
      // Sent before the first connection is made: waits for it.
      expect(await redis.set('redis-required-test', 'alive')).toBe('OK');

      await proxy.cut();
      // Long enough for ioredis' reconnection delays to grow past a second.
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      const away = await timed(() => redis.get('redis-required-test'));
      expect(away.outcome).toMatch(/^failed: /);
      // Not a benchmark: without the fail-fast a command waits out further reconnection delays (1.6 s, 3.2 s, …;
      // about 9 s here). The bound leaves room for a loaded machine's event-loop delays.
      expect(away.ms).toBeLessThan(2_000);

      await proxy.restore();
      await waitFor(async () => (await redis.get('redis-required-test').catch(() => undefined)) === 'alive', 15_000);
    } finally {
      await runtime.stop();
      await proxy.close();
    }
  }, 30_000);

  test('fails at once when its Redis was never there, after the first attempt', async () => {
    const runtime = new ServiceRuntime('redis-required-test', { BIND_HOST: '127.0.0.1', OPS_PORT: 0, LOG_LEVEL: 'silent' }, logger);
    const redis: RedisClient = runtime.redis({ REDIS_URL: 'redis://127.0.0.1:1' });
    try {
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      const never = await timed(() => redis.get('anything'));
      expect(never.outcome).toMatch(/^failed: /);
      expect(never.ms).toBeLessThan(2_000);
    } finally {
      await runtime.stop();
    }
  }, 30_000);
});
