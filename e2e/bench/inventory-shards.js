#!/usr/bin/env node
/**
 * Holds per second against one Redis and against a 3-master Redis Cluster,
 * in one run, with events spread over the shards (the slot of `{ev:<id>}`
 * decides). Two kinds of row for each:
 *   - through inventory: one inventory process (gRPC, the PostgreSQL record,
 *     then the hold script), as partners' checkouts take holds;
 *   - the hold script alone, from this process, straight to Redis: what the
 *     Redis side could take if nothing else were in the way.
 * CPU per process (inventory, every redis-server, every PostgreSQL backend,
 * this process) is read from /proc during each row, so the figures say
 * which process the cores went to. The cluster is started for the run on
 * ports 17001-17003 (deploy/local, REDIS_CLUSTER=3) and stopped after,
 * unless it was running already.
 *
 *   make bench-shards      (BENCH_SECONDS, BENCH_CONCURRENCY)
 */
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { setTimeout, clearTimeout } = require('node:timers');
const { createPool, createServiceClient, gen, randomBase62, redisFromEnv, shardOf, keysEverywhere } = require('@partner-api/shared');
const { HoldBook } = require('../../services/inventory/dist/storage/hold-book');
const { ROOT, cpuSeconds, loadEnv, loopLoad, pidsNamed, record, startInventory, usedSince } = require('./lib');

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 200);
const EVENTS = 6;
const CAPACITY = 1_000_000;
const BUDGET_MS = 4 * 60 * 1000;
const CLUSTER_URL = 'redis+cluster://127.0.0.1:17001,127.0.0.1:17002,127.0.0.1:17003';
const INFRA = path.join(ROOT, 'deploy', 'local', 'infra.sh');
const ctx = { organisationId: 909191, mode: 'live', keyId: 0, requestId: `bench_${randomBase62(12)}` };

const infra = (...args) => execFileSync(INFRA, args, { env: { ...process.env, REDIS_CLUSTER: '3' }, stdio: ['ignore', 'ignore', 'inherit'] });
const clusterRunning = () => {
  try {
    execFileSync('redis-cli', ['-p', '17001', 'ping'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};

async function onSaleEvents(client) {
  const events = [];
  for (let i = 0; i < EVENTS; i += 1) {
    const slug = `bench-shards-${randomBase62(8).toLowerCase()}`;
    const event = await client.upsertEvent({ fields: { slug, title: 'Bench shards', startsAt: new Date(Date.now() + 30 * 86_400_000).toISOString(), timezone: 'UTC' } }, ctx);
    const pool = await client.upsertPool({ eventIdOrSlug: slug, fields: { name: 'GA', capacity: BigInt(CAPACITY) } }, ctx);
    const type = await client.upsertTicketType({ eventIdOrSlug: slug, fields: { name: 'GA', price: '10.00', bookingFee: '1.00', maxPerOrder: 10, poolIds: [pool.id] } }, ctx);
    await client.changeEventStatus({ idOrSlug: slug, action: 'publish' }, ctx);
    await client.listTicketTypes({ eventIdOrSlug: slug }, ctx); // the counter is built in Redis
    events.push({ slug, eventId: event.id.toString(), poolId: pool.id.toString(), typeId: type.id });
  }
  return events;
}

/** Runs `once` for SECONDS from CONCURRENCY loops, with the cores each group of processes used meanwhile. */
async function measure(name, once, groups) {
  await loopLoad({ once, workers: 20, seconds: 1 }); // connections up, scripts loaded
  const spent = usedSince(groups, cpuSeconds);
  const result = await loopLoad({ once, workers: CONCURRENCY, seconds: SECONDS });
  const used = spent();
  const cores = Object.fromEntries(Object.keys(groups).map((group) => [group, used[group] / SECONDS]));
  return { name, ...result, cores };
}

/** The four rows against one Redis target. */
async function rowsFor(label, redisUrl, redisPids) {
  const inventory = await startInventory(`shards-${label}`, { REDIS_URL: redisUrl });
  const client = createServiceClient(gen.inventory.InventoryService, inventory.address);
  // Auto-pipelined, as inventory's own client is (redis-gate.ts).
  const redis = redisFromEnv({ ...process.env, REDIS_URL: redisUrl }, { connection: { enableAutoPipelining: true } });
  let events = [];
  try {
    events = await onSaleEvents(client);
    await keysEverywhere(redis, 'nothing'); // a cluster client knows its slots from here on
    const shards = new Set(events.map((event) => shardOf(redis, `{ev:${event.eventId}}`) ?? 'one'));
    const groups = { inventory: () => [inventory.pid], redis: redisPids, postgres: () => pidsNamed('postgres'), bench: () => [process.pid] };
    let next = 0;
    const pick = () => events[(next += 1) % events.length];

    const viaInventory = await measure(`through inventory, ${label}`, () => {
      const event = pick();
      return client.holdStock({ holdId: randomBase62(16), eventIdOrSlug: event.slug, lines: [{ ticketTypeId: event.typeId, quantity: 1 }], ttlSeconds: 60 }, ctx);
    }, groups);

    const book = new HoldBook(redis);
    const scriptOnly = await measure(`hold script alone, ${label}`, async () => {
      const event = pick();
      // A short expiry: these holds have no PostgreSQL record, and Redis forgets them by itself.
      const outcome = await book.hold(event.eventId, randomBase62(16), [{ poolId: event.poolId, quantity: 1, threshold: 0 }], new Date(Date.now() + 60_000));
      if (!outcome.held) throw new Error(outcome.reason);
    }, groups);
    return { shards: shards.size, rows: [viaInventory, scriptOnly] };
  } finally {
    client.close();
    await inventory.stop();
    await removeRunState(redis, events);
    await redis.quit();
  }
}

/**
 * Deletes what the run's events left: their keys in this Redis target (the
 * script-alone rows' hold records have no PostgreSQL row for a sweeper to
 * release, and each run left about 340,000 of them) and their hold rows.
 * The events are the run's own; nothing else refers to them.
 */
async function removeRunState(redis, events) {
  let keys = 0;
  for (const event of events) {
    const found = await keysEverywhere(redis, `{ev:${event.eventId}}:*`);
    // One event's keys share a hash tag, so each DEL stays in one slot.
    for (let start = 0; start < found.length; start += 1000) keys += await redis.del(...found.slice(start, start + 1000));
  }
  const pool = createPool({ url: process.env.DATABASE_URL, schema: 'inventory', max: 1, applicationName: 'bench-shards' });
  try {
    const { rowCount } = await pool.query('DELETE FROM holds WHERE event_id = ANY ($1::bigint[])', [events.map((event) => event.eventId)]);
    console.log(`removed the run's ${keys} Redis keys and ${rowCount} hold rows`);
  } finally {
    await pool.end();
  }
}

const redisPidFile = (dir) => Number(fs.readFileSync(path.join(ROOT, '.data', dir, 'redis.pid'), 'utf8').trim());

async function main() {
  loadEnv();
  const guard = setTimeout(() => {
    console.error(`bench-shards: over ${BUDGET_MS / 1000} s, giving up`);
    process.exit(1);
  }, BUDGET_MS);
  guard.unref();
  const clusterWasRunning = clusterRunning();
  if (!clusterWasRunning) infra('start', 'redis');
  try {
    const single = await rowsFor('1 Redis', process.env.REDIS_URL, () => [redisPidFile('redis')]);
    const cluster = await rowsFor('3 shards', CLUSTER_URL, () => [17001, 17002, 17003].map((port) => redisPidFile(`redis-cluster/${port}`)));
    const [singleInventory, singleScript] = single.rows;
    const [clusterInventory, clusterScript] = cluster.rows;
    const ratio = (row, base) => (row.rps / base.rps).toFixed(2);
    const line = (row, base) =>
      `| ${row.name} | ${row.rps.toFixed(0)} | ${row.p50.toFixed(1)} | ${row.p99.toFixed(1)} | ${row.bad} | ${row.cores.inventory.toFixed(2)} | ${row.cores.redis.toFixed(2)} | ${row.cores.postgres.toFixed(2)} | ${row.cores.bench.toFixed(2)} | ${base ? ratio(row, base) : '1.00 (baseline)'} |`;
    const markdown = [
      `${CONCURRENCY} holds in flight, ${SECONDS} s a row, one ticket per hold, spread over ${EVENTS} events (on ${cluster.shards} of the cluster's 3 shards). Cores = CPU seconds per second of each group of processes during the row.`,
      '',
      '| Row | Holds/s | p50 ms | p99 ms | Failed | Inventory cores | Redis cores | PostgreSQL cores | Bench client cores | vs 1 Redis |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
      line(singleInventory),
      line(clusterInventory, singleInventory),
      line(singleScript),
      line(clusterScript, singleScript),
    ].join('\n');
    console.log(markdown);
    record('inventory-shards', markdown);
    if ([...single.rows, ...cluster.rows].some((row) => row.bad > 0)) process.exitCode = 1;
  } finally {
    if (!clusterWasRunning) infra('stop', 'redis');
    clearTimeout(guard);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
