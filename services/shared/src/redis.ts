/**
 * The one place a Redis client is made. `REDIS_URL` names either one Redis
 * (`redis://host:port/db`, `rediss://…`) or a Redis Cluster
 * (`redis+cluster://host:port,host:port`, `rediss+cluster://…` for TLS);
 * `REDIS_CLUSTER_NODES` (`host:port,host:port`) names a cluster too, taking
 * any password and TLS from `REDIS_URL`. Callers get the same commands either
 * way; what differs is per shard (SCAN, INFO, FLUSHDB), which `redisShards`
 * hands out. Every multi-key script keeps its keys in one slot with a hash
 * tag (`{ev:<id>}`, `{<key hash>}`, `{<api key id>}`).
 */
import calculateSlot from 'cluster-key-slot';
import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';

export type RedisClient = Redis | Cluster;

export type RedisTarget =
  | { kind: 'single'; url: string }
  | { kind: 'cluster'; nodes: Array<{ host: string; port: number }>; options: RedisOptions };

const CLUSTER_SCHEME = /^(rediss?)\+cluster:\/\/(?:([^@/]*)@)?([^/?#]+)\/?$/;

function parseNodes(list: string): Array<{ host: string; port: number }> {
  const nodes = list
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => {
      const match = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(entry);
      if (!match) throw new Error(`not a host:port: ${entry}`);
      return { host: match[1]!.replace(/^\[|\]$/g, ''), port: Number(match[2]) };
    });
  if (nodes.length === 0) throw new Error('a Redis Cluster needs at least one host:port');
  return nodes;
}

function authOf(userinfo: string | undefined): RedisOptions {
  if (!userinfo) return {};
  const [username, password] = userinfo.split(':').map((part) => decodeURIComponent(part));
  return password === undefined ? { password: username } : { ...(username ? { username } : {}), password };
}

/** Reads `REDIS_URL` (and `REDIS_CLUSTER_NODES` when set); throws on a setting it cannot use. */
export function parseRedisTarget(url: string, clusterNodes?: string): RedisTarget {
  const cluster = CLUSTER_SCHEME.exec(url);
  if (cluster) {
    const tls = cluster[1] === 'rediss' ? { tls: {} } : {};
    return { kind: 'cluster', nodes: parseNodes(clusterNodes || cluster[3]!), options: { ...authOf(cluster[2]), ...tls } };
  }
  const parsed = new URL(url);
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') throw new Error(`not a Redis URL: ${url}`);
  if (!clusterNodes) return { kind: 'single', url };
  if (parsed.pathname.length > 1 && parsed.pathname !== '/0') throw new Error('a Redis Cluster has only database 0');
  const userinfo = parsed.username || parsed.password ? `${parsed.username}:${parsed.password}` : undefined;
  return { kind: 'cluster', nodes: parseNodes(clusterNodes), options: { ...authOf(userinfo), ...(parsed.protocol === 'rediss:' ? { tls: {} } : {}) } };
}

export interface RedisClientOptions {
  /** Per connection (every shard's, in a cluster). */
  connection?: RedisOptions;
  /** Cluster-wide; ignored for one Redis. */
  cluster?: Omit<ClusterOptions, 'redisOptions'>;
}

export function createRedis(target: RedisTarget, options: RedisClientOptions = {}): RedisClient {
  if (target.kind === 'single') return new Redis(target.url, options.connection ?? {});
  // Pipelining and the offline queue are the cluster's own (it routes every command); the rest is per connection.
  const { enableAutoPipelining, enableOfflineQueue, ...connection } = options.connection ?? {};
  const { slotsRefreshInterval, ...clusterOptions } = options.cluster ?? {};
  const cluster = new Cluster(target.nodes, {
    scaleReads: 'master',
    ...(enableAutoPipelining === undefined ? {} : { enableAutoPipelining }),
    ...(enableOfflineQueue === undefined ? {} : { enableOfflineQueue }),
    ...clusterOptions,
    redisOptions: { ...target.options, ...connection },
  });
  if (slotsRefreshInterval) refreshSlotsEvery(cluster, slotsRefreshInterval);
  return cluster;
}

/**
 * For a client the service cannot work without: once its first connection
 * attempt has settled (connected or refused), a command sent while the
 * client is disconnected fails at once instead of waiting in the offline
 * queue through ioredis' reconnection attempts, whose delays grow to 5 s
 * and of which a command waits out several. A request then answers its
 * error in milliseconds, and readiness (a PING) reports why. Commands sent
 * during the first connection still wait for it. On a cluster this is the
 * cluster's own queue; each shard's connection keeps its bounded retries.
 */
export function queueOnlyUntilFirstConnect(client: RedisClient): void {
  const stopQueueing = (): void => {
    client.options.enableOfflineQueue = false;
  };
  client.once('ready', stopQueueing);
  client.once('close', stopQueueing);
}

/**
 * The periodic slot-table refresh, ours rather than ioredis's
 * `slotsRefreshInterval`: that one re-arms its timer when a refresh in
 * flight at `quit()` comes back, so the closed client keeps refreshing and
 * its process never exits. Ours never holds the process open and ends with
 * the client.
 */
function refreshSlotsEvery(cluster: Cluster, intervalMs: number): void {
  const timer = setInterval(() => {
    if (cluster.status === 'ready') cluster.refreshSlotsCache();
  }, intervalMs);
  timer.unref();
  cluster.once('end', () => clearInterval(timer));
}

/** Key counts a cluster client gets a fixed-count command for (see defineScript). */
const CLUSTER_SCRIPT_KEY_COUNTS = 64;

/**
 * Defines a Lua script as a command of the client, called as
 * `client[name](...)`: with its key count first when `numberOfKeys` is not
 * given, as ioredis does. A cluster client's auto-pipelining groups
 * commands by the node of their first argument, and for such a script that
 * argument is the count, not a key: commands bound for different shards
 * would share a pipeline, which ioredis then refuses whole. So on a cluster
 * the name calls one command per key count, each with its count fixed, so
 * that its first argument is its first key. They are all defined here, up
 * front: an auto-pipeline has only the commands its client had when the
 * pipeline began, and one defined later would be missing from it (ioredis
 * then fails the whole pipeline, and its process). More keys than that,
 * which no caller needs, go as EVAL, which ioredis routes by its first key.
 */
export function defineScript(client: RedisClient, name: string, lua: string, numberOfKeys?: number): void {
  if (numberOfKeys !== undefined || !isCluster(client)) {
    client.defineCommand(name, numberOfKeys === undefined ? { lua } : { lua, numberOfKeys });
    return;
  }
  for (let keys = 1; keys <= CLUSTER_SCRIPT_KEY_COUNTS; keys += 1) client.defineCommand(`${name}_${keys}`, { lua, numberOfKeys: keys });
  const commands = client as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  commands[name] = (count: unknown, ...keysAndArgs: unknown[]) => {
    const keys = Number(count);
    return keys >= 1 && keys <= CLUSTER_SCRIPT_KEY_COUNTS
      ? commands[`${name}_${keys}`]!(...keysAndArgs)
      : client.eval(lua, keys, ...(keysAndArgs as Array<string | number>));
  };
}

export const isCluster = (client: RedisClient): client is Cluster => client instanceof Cluster;

/** The connection of every shard (the masters of a cluster; the client itself otherwise), for per-shard commands. */
export function redisShards(client: RedisClient): Redis[] {
  return isCluster(client) ? client.nodes('master') : [client];
}

/** The `host:port` of a shard's connection, as the cluster's slot table names it. */
export const shardKey = (shard: Redis): string => `${shard.options.host}:${shard.options.port}`;

/** The Redis Cluster slot of a key (hash tag honoured). */
export const keySlot = (key: string): number => calculateSlot(key);

/**
 * The shard that owns `key` in a cluster (its `host:port`), or undefined
 * while the client has no slot table yet; always undefined for one Redis.
 */
export function shardOf(client: RedisClient, key: string): string | undefined {
  return isCluster(client) ? client.slots[keySlot(key)]?.[0] : undefined;
}

/** A client for the Redis the environment names (REDIS_URL, REDIS_CLUSTER_NODES): tests and tools. */
export function redisFromEnv(env: NodeJS.ProcessEnv = process.env, options: RedisClientOptions = {}): RedisClient {
  return createRedis(parseRedisTarget(env.REDIS_URL ?? 'redis://127.0.0.1:56379', env.REDIS_CLUSTER_NODES), options);
}

/**
 * The keys matching `pattern` on one node, by SCAN in steps of about
 * `count`: a service's own walk over the keyspace, which must never block
 * Redis the way KEYS does.
 */
export async function* scanNode(node: Redis, pattern: string, count = 1000): AsyncGenerator<string[]> {
  let cursor = '0';
  do {
    const [next, found] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', count);
    if (found.length > 0) yield found;
    cursor = next;
  } while (cursor !== '0');
}

/** The keys matching `pattern` on every shard, by SCAN (see scanNode). */
export async function scanEverywhere(client: RedisClient, pattern: string): Promise<string[]> {
  const perShard = await Promise.all(
    redisShards(client).map(async (shard) => {
      const keys: string[] = [];
      for await (const batch of scanNode(shard, pattern)) keys.push(...batch);
      return keys;
    }),
  );
  return perShard.flat();
}

/** KEYS on every shard (tests and tools only: it walks the whole keyspace). */
export async function keysEverywhere(client: RedisClient, pattern: string): Promise<string[]> {
  if (isCluster(client) && client.status !== 'ready') await new Promise((resolve) => client.once('ready', resolve));
  return (await Promise.all(redisShards(client).map((shard) => shard.keys(pattern)))).flat();
}
