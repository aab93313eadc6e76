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
 *
 * On a Redis Cluster the same check runs per shard (per master): each
 * keeps its own run key, in a slot it owns, and one shard that drops its
 * connection or restarts closes only the events whose `{ev:<id>}` slot it
 * serves, until it is verified again (its counters are then rebuilt from
 * PostgreSQL on first use). /readyz fails only while no shard is open.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { createRedis, isCluster, parseRedisTarget, scanNode, shardKey, shardOf, type Logger, type RedisClient, type ServiceRuntime } from '@partner-api/shared';
import type { StockGate } from './hold-book';

/** The Redis run our keys belong to (one Redis; a cluster shard adds a hash tag it owns). */
export const REDIS_RUN_KEY = 'inventory:redis-run';
const WIPE_LOCK_KEY = 'inventory:redis-run:wipe';
/** Every inventory key carries its event's hash tag. */
const INVENTORY_KEYS = '{ev:*';
/** The shard of one Redis (not a cluster). */
const SINGLE = 'single';

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

interface Shard {
  open: boolean;
  /** Bumped on every lost connection: a verification of an older connection never opens the shard. */
  connection: number;
}

export class RedisGate implements StockGate {
  private readonly shards = new Map<string, Shard>();
  private stopped = false;
  private readonly wipeLockMs: number;
  private readonly retryMs: number;
  private readonly nudge: NodeJS.Timeout | undefined;

  constructor(
    private readonly redis: RedisClient,
    private readonly logger: Logger,
    options: GateOptions = {},
  ) {
    this.wipeLockMs = options.wipeLockMs ?? 30_000;
    this.retryMs = options.retryMs ?? 200;
    if (isCluster(redis)) {
      // A cluster makes a new connection per shard after one is lost, and only
      // on demand: watch each, and connect those of closed shards ourselves
      // (nothing else would, the gate refusing their events).
      redis.on('+node', (node: Redis) => this.watch(node, shardKey(node)));
      for (const node of redis.nodes('all')) this.watch(node, shardKey(node));
      this.nudge = setInterval(() => {
        for (const node of redis.nodes('master')) if (node.status === 'wait' && !this.shard(shardKey(node)).open) node.connect().catch(() => undefined);
      }, this.retryMs);
      this.nudge.unref();
    } else {
      this.watch(redis, SINGLE);
    }
  }

  /** True while every shard is connected and verified. */
  get isOpen(): boolean {
    return this.shards.size > 0 && [...this.shards.values()].every((shard) => shard.open) && !this.stopped;
  }

  /** True while at least one shard is (readiness: some events can be sold). */
  get anyOpen(): boolean {
    return [...this.shards.values()].some((shard) => shard.open) && !this.stopped;
  }

  /** Closes the gate for good (the process is shutting down). */
  stop(): void {
    this.stopped = true;
    if (this.nudge) clearInterval(this.nudge);
    for (const shard of this.shards.values()) {
      shard.open = false;
      shard.connection += 1;
    }
  }

  /**
   * Throws unless the shard of `eventId` is connected and its data verified
   * for this run; without an event, unless some shard is (the event's own
   * check follows when its keys are touched).
   */
  check(eventId?: string): void {
    if (eventId === undefined ? this.anyOpen : this.isOpenFor(eventId)) return;
    throw new RedisUnavailableError(
      eventId === undefined ? 'Redis is not connected, or its data is not verified yet' : `the Redis shard of event ${eventId} is not connected, or its data is not verified yet`,
    );
  }

  isOpenFor(eventId: string): boolean {
    if (this.stopped) return false;
    const key = isCluster(this.redis) ? shardOf(this.redis, `{ev:${eventId}}`) : SINGLE;
    return key !== undefined && this.shards.get(key)?.open === true;
  }

  /** Resolves once every shard is open; rejects after `timeoutMs`. */
  async whenOpen(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.isOpen || (isCluster(this.redis) && this.shards.size < this.redis.nodes('master').length)) {
      if (Date.now() > deadline) throw new RedisUnavailableError(`Redis was not verified within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  private shard(key: string): Shard {
    let shard = this.shards.get(key);
    if (!shard) this.shards.set(key, (shard = { open: false, connection: 0 }));
    return shard;
  }

  private watch(node: Redis, key: string): void {
    const shard = this.shard(key);
    node.on('close', () => {
      if (shard.open && !this.stopped) this.logger.warn({ shard: key }, 'redis connection lost: stock operations on it refused until it is back and verified');
      shard.open = false;
      shard.connection += 1;
    });
    node.on('ready', () => void this.verify(node, key, shard.connection));
    if (node.status === 'ready') void this.verify(node, key, shard.connection);
  }

  /** The run key and wipe lock of a shard: in a slot it serves (a hash tag found by trying). */
  private shardKeys(key: string): { run: string; wipe: string } | undefined {
    if (!isCluster(this.redis)) return { run: REDIS_RUN_KEY, wipe: WIPE_LOCK_KEY };
    for (let tag = 0; tag < 100_000; tag += 1) {
      const run = `${REDIS_RUN_KEY}:{${tag}}`;
      if (shardOf(this.redis, run) === key) return { run, wipe: `${WIPE_LOCK_KEY}:{${tag}}` };
    }
    return undefined; // the slot table does not list this node as a master (yet)
  }

  private async verify(node: Redis, key: string, connection: number): Promise<void> {
    const shard = this.shard(key);
    while (connection === shard.connection && !this.stopped && node.status === 'ready') {
      try {
        const keys = this.shardKeys(key);
        if (!keys) throw new Error(`no slot of ${key} in the cluster's slot table`);
        const runId = /run_id:(\w+)/.exec(await node.info('server'))?.[1];
        if (!runId) throw new Error('INFO server reported no run_id');
        const verdict = (await node.eval(ADOPT, 1, keys.run, runId)) as 'adopted' | 'current' | 'stale';
        if (verdict === 'stale' && !(await this.dropStaleKeys(node, shard, keys, runId, connection))) return;
        if (connection !== shard.connection || this.stopped) return;
        shard.open = true;
        this.logger.info({ shard: key, runId, verdict }, 'redis verified: stock operations open');
        return;
      } catch (error) {
        this.logger.warn({ err: error, shard: key }, 'could not verify the redis run; retrying');
        await new Promise((resolve) => setTimeout(resolve, this.retryMs));
      }
    }
  }

  /** One process drops every inventory key of the earlier run on this shard; the others wait for it. False if the connection was lost meanwhile. */
  private async dropStaleKeys(node: Redis, shard: Shard, keys: { run: string; wipe: string }, runId: string, connection: number): Promise<boolean> {
    for (;;) {
      if (connection !== shard.connection) return false;
      if ((await node.get(keys.run)) === runId) return true;
      const token = randomUUID();
      if ((await node.set(keys.wipe, token, 'PX', this.wipeLockMs, 'NX')) === 'OK') {
        let dropped = 0;
        for await (const found of scanNode(node, INVENTORY_KEYS)) {
          // One key per UNLINK: in a cluster the keys of one batch span slots.
          const results = await node.pipeline(found.map((name) => ['unlink', name])).exec();
          dropped += (results ?? []).reduce((sum, [, count]) => sum + Number(count ?? 0), 0);
        }
        await node.set(keys.run, runId);
        await node.eval(UNLOCK, 1, keys.wipe, token);
        this.logger.warn({ runId, dropped }, 'redis came back with data from an earlier run: dropped every inventory key; counters and holds are rebuilt from PostgreSQL');
        return true;
      }
      await new Promise((resolve) => setTimeout(resolve, this.retryMs));
    }
  }
}

/**
 * The inventory's own Redis client (one Redis or a cluster): nothing waits
 * in an offline queue and nothing is re-sent after a reconnect or a lost
 * shard (either could run a hold before the new run is verified); a
 * command gets no answer for 5 s → it fails. Registered for readiness
 * (some shard's gate must be open) and orderly close.
 */
export function inventoryRedis(runtime: ServiceRuntime, config: { REDIS_URL: string; REDIS_CLUSTER_NODES?: string | undefined }): { redis: RedisClient; gate: RedisGate } {
  const redis = createRedis(parseRedisTarget(config.REDIS_URL, config.REDIS_CLUSTER_NODES), {
    connection: {
      enableAutoPipelining: true,
      enableOfflineQueue: false,
      autoResendUnfulfilledCommands: false,
      commandTimeout: 5_000,
      maxRetriesPerRequest: 2,
    },
    // A command lost with its shard's connection fails; it is not sent again once the shard is back.
    cluster: { retryDelayOnFailover: 0, retryDelayOnClusterDown: 0, retryDelayOnTryAgain: 0, slotsRefreshInterval: 1_000 },
  });
  redis.on('error', (error) => runtime.logger.warn({ err: error }, 'redis connection error'));
  const gate = new RedisGate(redis, runtime.logger);
  runtime.lifecycle.onShutdown('redis', async () => {
    gate.stop();
    await redis.quit().catch(() => redis.disconnect());
  });
  runtime.lifecycle.addReadinessCheck('redis', async () => {
    gate.check();
    if (!isCluster(redis)) await redis.ping();
  });
  return { redis, gate };
}
