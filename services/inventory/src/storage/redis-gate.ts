/**
 * The inventory's Redis connection, and the gate every stock operation
 * passes. Redis holds no truth here: PostgreSQL is the durable record and
 * every counter and hold record is rebuilt from it when missing. What must
 * never be used is an old copy of the data: a Redis that restarted from an
 * append-only file or a snapshot, or a replica promoted after a failover,
 * can come back with counters from before the last holds (more stock than
 * there is), and holds taken on them oversell.
 *
 * So the gate closes whenever the connection drops, and opens again only
 * once this Redis run (its INFO `run_id`) is known to be the one our keys
 * were written in: the first process to see a run records its id under
 * `inventory:redis-run` (an empty Redis, after a restart without
 * persistence, is simply adopted); a process that finds another run's id
 * there knows the data came back from an earlier run, and one process drops
 * every inventory key (`{ev:*`) before any process uses the stock again.
 * While the gate is closed stock operations fail at once (`hold_failed`),
 * nothing is queued for later, and /readyz reports `redis` failing.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Logger, ServiceRuntime } from '@partner-api/shared';

/** The Redis run our keys belong to. */
export const REDIS_RUN_KEY = 'inventory:redis-run';
const WIPE_LOCK_KEY = 'inventory:redis-run:wipe';
/** Every inventory key carries its event's hash tag. */
const INVENTORY_KEYS = '{ev:*';

// KEYS[1] = run key; ARGV[1] = this run's id.
const ADOPT = `
local seen = redis.call('GET', KEYS[1])
if not seen then redis.call('SET', KEYS[1], ARGV[1]) return 'adopted' end
if seen == ARGV[1] then return 'current' end
return 'stale'
`;

// KEYS[1] = lock; ARGV[1] = our token.
const UNLOCK = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

export class RedisUnavailableError extends Error {
  override readonly name = 'RedisUnavailableError';
}

export interface GateOptions {
  /** How long one process may take to drop stale keys before another may try. */
  wipeLockMs?: number;
  /** Pause between attempts while verifying or waiting for another process's wipe. */
  retryMs?: number;
}

export class RedisGate {
  private open = false;
  private stopped = false;
  /** Bumped on every lost connection: a verification of an older connection never opens the gate. */
  private connection = 0;
  private readonly wipeLockMs: number;
  private readonly retryMs: number;

  constructor(
    private readonly redis: Redis,
    private readonly logger: Logger,
    options: GateOptions = {},
  ) {
    this.wipeLockMs = options.wipeLockMs ?? 30_000;
    this.retryMs = options.retryMs ?? 200;
    redis.on('close', () => {
      if (this.open && !this.stopped) this.logger.warn('redis connection lost: stock operations refused until it is back and verified');
      this.open = false;
      this.connection += 1;
    });
    redis.on('ready', () => void this.verify(this.connection));
    if (redis.status === 'ready') void this.verify(this.connection);
  }

  get isOpen(): boolean {
    return this.open;
  }

  /** Closes the gate for good (the process is shutting down). */
  stop(): void {
    this.stopped = true;
    this.open = false;
    this.connection += 1;
  }

  /** Throws unless Redis is connected and its data verified for this run. */
  check(): void {
    if (!this.open) throw new RedisUnavailableError('Redis is not connected, or its data is not verified yet');
  }

  /** Resolves once the gate is open; rejects after `timeoutMs`. */
  async whenOpen(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.open) {
      if (Date.now() > deadline) throw new RedisUnavailableError(`Redis was not verified within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  private async verify(connection: number): Promise<void> {
    while (connection === this.connection && !this.stopped && this.redis.status === 'ready') {
      try {
        const runId = /run_id:(\w+)/.exec(await this.redis.info('server'))?.[1];
        if (!runId) throw new Error('INFO server reported no run_id');
        const verdict = (await this.redis.eval(ADOPT, 1, REDIS_RUN_KEY, runId)) as 'adopted' | 'current' | 'stale';
        if (verdict === 'stale' && !(await this.dropStaleKeys(runId, connection))) return;
        if (connection !== this.connection || this.stopped) return;
        this.open = true;
        this.logger.info({ runId, verdict }, 'redis verified: stock operations open');
        return;
      } catch (error) {
        this.logger.warn({ err: error }, 'could not verify the redis run; retrying');
        await new Promise((resolve) => setTimeout(resolve, this.retryMs));
      }
    }
  }

  /** One process drops every inventory key of the earlier run; the others wait for it. False if the connection was lost meanwhile. */
  private async dropStaleKeys(runId: string, connection: number): Promise<boolean> {
    for (;;) {
      if (connection !== this.connection) return false;
      if ((await this.redis.get(REDIS_RUN_KEY)) === runId) return true;
      const token = randomUUID();
      if ((await this.redis.set(WIPE_LOCK_KEY, token, 'PX', this.wipeLockMs, 'NX')) === 'OK') {
        let cursor = '0';
        let dropped = 0;
        do {
          const [next, keys] = await this.redis.scan(cursor, 'MATCH', INVENTORY_KEYS, 'COUNT', 1000);
          if (keys.length > 0) dropped += await this.redis.unlink(...keys);
          cursor = next;
        } while (cursor !== '0');
        await this.redis.set(REDIS_RUN_KEY, runId);
        await this.redis.eval(UNLOCK, 1, WIPE_LOCK_KEY, token);
        this.logger.warn({ runId, dropped }, 'redis came back with data from an earlier run: dropped every inventory key; counters and holds are rebuilt from PostgreSQL');
        return true;
      }
      await new Promise((resolve) => setTimeout(resolve, this.retryMs));
    }
  }
}

/**
 * The inventory's own Redis client: nothing waits in an offline queue and
 * nothing is re-sent after a reconnect (either could run a hold before the
 * new run is verified); a command gets no answer for 5 s → it fails.
 * Registered for readiness (the gate must be open) and orderly close.
 */
export function inventoryRedis(runtime: ServiceRuntime, url: string): { redis: Redis; gate: RedisGate } {
  const redis = new Redis(url, {
    enableAutoPipelining: true,
    enableOfflineQueue: false,
    autoResendUnfulfilledCommands: false,
    commandTimeout: 5_000,
    maxRetriesPerRequest: 2,
  });
  redis.on('error', (error) => runtime.logger.warn({ err: error }, 'redis connection error'));
  const gate = new RedisGate(redis, runtime.logger);
  runtime.lifecycle.onShutdown('redis', async () => {
    gate.stop();
    await redis.quit().catch(() => redis.disconnect());
  });
  runtime.lifecycle.addReadinessCheck('redis', async () => {
    gate.check();
    await redis.ping();
  });
  return { redis, gate };
}
