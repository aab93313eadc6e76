// make bench-onsale: an on-sale, measured three ways, each against a baseline
// taken in the same run with the same concurrency (issue #5):
//
// 1. POST /checkout_sessions through the whole stack (gateway → orders →
//    inventory: checkout rules, PostgreSQL hold row, Redis Lua hold, session
//    row) on an organisation, key and on-sale event of its own, against
//    GET / through the gateway with the same key (the gateway's fixed cost).
// 2. The inventory's Redis Lua hold (HoldBook, 1 ticket per call) against the
//    classic PostgreSQL row-lock hold (SELECT … FOR UPDATE, UPDATE, INSERT),
//    plus the durable pair HoldDesk actually runs (HoldRecords' batched hold
//    row INSERT, then Lua).
// 3. The same hold script from our Node client (ioredis) against Redis's own
//    C client, redis-benchmark, both sending EVALSHA with fresh hold ids.
//
// Everything targets loopback, is bounded in time (redis-benchmark in count)
// and stops by itself; the Redis keys and the PostgreSQL schemas it creates
// for 2 and 3 are removed at the end (and reset at the start).
const { execFile } = require('node:child_process');
const { createHash, randomUUID } = require('node:crypto');
const os = require('node:os');
const { setTimeout } = require('node:timers');
const { Redis } = require('ioredis');
const { createPool } = require('@partner-api/shared');
const { HoldBook } = require('@partner-api/inventory/dist/storage/hold-book');
const { lowStockThreshold } = require('@partner-api/inventory/dist/domain/stock-alerts');
const { HoldRecords } = require('@partner-api/inventory/dist/storage/hold-records');
const {
  aofRewrites, checkoutBody, cpuByProcess, createSessions, freePort, loadEnv, loopbackOnly, httpLoad, steadyLoad, mergedLatency, lateAnswers, loopLoad, redisSettled, releaseHolds, removeRunRows,
  table, record, setUpOnSale, startService,
} = require('./lib');

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
/** Length of the one-buyer row (the path's time without queues). */
const ALONE_SECONDS = 3;
/** The first seconds of a row at full concurrency, as every buyer connects at once: reported apart from the steady figures (lib's steadyLoad). */
const RAMP_SECONDS = Number(process.env.BENCH_RAMP_SECONDS ?? 2);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 200);
const PG_POOL_SIZE = Number(process.env.BENCH_PG_POOL ?? 20);
const REDIS_BENCHMARK_REQUESTS = Number(process.env.BENCH_REDIS_REQUESTS ?? 200_000);
const REDIS_BENCHMARK = process.env.REDIS_BENCHMARK ?? '/usr/bin/redis-benchmark';
/** Tickets in the on-sale pool: far more than 15 minutes of holds at any rate this machine reaches. */
const CAPACITY = 1_000_000;
/** Stock of the synthetic pools of measurements 2 and 3. */
const BENCH_STOCK = 1_000_000_000;
/** Which of the three measurements to run, e.g. "1" while profiling the services; all by default (and only then recorded). */
const PARTS = new Set((process.env.BENCH_ONSALE_PARTS ?? '1,2,3').split(',').map((part) => part.trim()));
const HOLD_TTL_MS = 15 * 60 * 1000;
/** PostgreSQL schema and Redis event ids of measurements 2 and 3, reset at the start and removed at the end. */
const SCHEMA = 'bench_onsale';
/** The durable row's hold table, a copy of inventory.holds's shape under the name HoldRecords writes to. */
const DURABLE_SCHEMA = 'bench_onsale_durable';
const EVENT_PREFIX = 'bench-onsale-';
/** The whole run is well under this; past it something hangs, and the benchmark gives up. */
const BUDGET_MS = 4 * 60 * 1000;

/** Warm-up holds go to an event of their own. */
const WARM_EVENT = `${EVENT_PREFIX}warm`;

const ratio = (value, baseline) => (value / baseline).toFixed(2);
const fmtInt = (n) => Math.round(n).toLocaleString('en-AU');

// ---------------------------------------------------------------------------
// 1. Full stack: checkout sessions through the gateway.

async function fullStack() {
  const onSale = await setUpOnSale({ name: 'onsale', title: 'On-sale', capacity: CAPACITY });
  try {
    return await measureFullStack(onSale);
  } finally {
    await releaseHolds(onSale);
    await removeRunRows(onSale);
  }
}

async function measureFullStack(onSale) {
  const headers = { authorization: `Bearer ${onSale.secret}` };
  const base = process.env.BASE_URL;
  const body = checkoutBody(onSale);

  // Warm both paths (key cache, gRPC channels, pools) before measuring.
  await httpLoad({ url: `${base}/`, headers, connections: 8, seconds: 1 });
  await createSessions({ url: `${base}/checkout_sessions`, headers, body, connections: 8, seconds: 2 });

  const rows = [
    {
      name: 'GET / through the gateway, same key (auth, admission script, request log)',
      ...(await steadyLoad({ url: `${base}/`, headers, connections: CONCURRENCY, seconds: SECONDS, rampSeconds: RAMP_SECONDS })),
    },
  ];
  // One buyer alone: the path's own time, with no queue at any hop.
  const alone = await createSessions({ url: `${base}/checkout_sessions`, headers, body, connections: 1, seconds: ALONE_SECONDS });
  rows.push({ name: 'POST /checkout_sessions, one buyer alone (no queue anywhere)', ...alone });
  let cpu;
  const sessions = await createSessions({
    url: `${base}/checkout_sessions`, headers, body, connections: CONCURRENCY, seconds: SECONDS, rampSeconds: RAMP_SECONDS, onSteady: () => (cpu = cpuByProcess()),
  });
  const spent = cpu.spent();
  const waited = cpu.waited();
  rows.push({ name: 'POST /checkout_sessions (1 ticket): gateway → orders → inventory hold (PG row + Lua) → session row', ...sessions });
  const replicas = await twoGateways({ headers, body });
  rows.push({ name: `The same through two gateway processes (two replicas), ${CONCURRENCY / 2} buyers on each`, ...replicas.sessions });
  const other = Object.entries(sessions.statuses).filter(([code]) => code !== '201').map(([code, count]) => `${count} × ${code}`);
  if (sessions.errors) other.push(`${sessions.errors} connection errors`);
  if (sessions.timeouts) other.push(`${sessions.timeouts} timeouts`);
  const markdown = [
    `**1. Full stack.** ${CONCURRENCY} concurrent buyers (autocannon connections), ${SECONDS} s each after a ${RAMP_SECONDS} s ramp at the same concurrency ` +
      '(figures count the requests sent after it; the ramp is reported below the table); checkout sessions created per second counts 201s only.',
    '',
    table(rows, rows[0].name),
    '',
    `Checkout sessions: ${fmtInt(sessions.rps)}/s, ${ratio(sessions.rps, rows[0].rps)} of the gateway's GET / rate; ` +
      `${sessions.total - sessions.bad} created, non-201 answers: ${other.length ? other.join(', ') : '0'}. ` +
      `Latency of the ${fmtInt(sessions.created)} measured: p50 ${sessions.p50.toFixed(0)} ms, p90 ${sessions.p90.toFixed(0)} ms, p99 ${sessions.p99.toFixed(0)} ms, max ${sessions.max.toFixed(0)} ms.`,
    '',
    lateLine(lateAnswers(sessions)),
    '',
    `The ramp (the first ${RAMP_SECONDS} s, as ${CONCURRENCY} buyers connect and send their first request in the same instant): ` +
      `${fmtInt(sessions.ramp.answered)} created, p99 ${sessions.ramp.p99.toFixed(0)} ms, max ${sessions.ramp.max.toFixed(0)} ms.`,
    '',
    `A checkout alone takes ${alone.p50.toFixed(1)} ms (p50; p99 ${alone.p99.toFixed(1)} ms). With ${CONCURRENCY} buyers each waiting for their answer, the mean latency is ` +
      `${CONCURRENCY} ÷ rate = ${((CONCURRENCY * 1000) / Math.max(1, sessions.rps)).toFixed(0)} ms (Little's law): the rest is waiting.`,
    '',
    'Where the CPU of the checkout row went, and how long each process was runnable but waiting for one of the cores (its threads\' run-queue delay from `/proc/<pid>/task/*/schedstat`), per checkout created:',
    '',
    '| Process | Cores busy | CPU ms per checkout | Threads waiting for a core (mean) | Run-queue ms per checkout |',
    '|---|---:|---:|---:|---:|',
    ...Object.entries(spent).map(([name, seconds]) => {
      const created = Math.max(1, sessions.created);
      return `| ${name} | ${(seconds / SECONDS).toFixed(2)} | ${((seconds * 1000) / created).toFixed(2)} | ${(waited[name] / SECONDS).toFixed(2)} | ${((waited[name] * 1000) / created).toFixed(2)} |`;
    }),
    '',
    `Two gateway processes (as two gateway pods behind one Service): ${fmtInt(replicas.sessions.rps)}/s, ${ratio(replicas.sessions.rps, sessions.rps)} of one gateway's rate, ` +
      `p50 ${replicas.sessions.p50.toFixed(0)} ms, p90 ${replicas.sessions.p90.toFixed(0)} ms, p99 ${replicas.sessions.p99.toFixed(0)} ms, max ${replicas.sessions.max.toFixed(0)} ms over both halves' measured requests. CPU during that row:`,
    '',
    '| Process | Cores busy | CPU ms per checkout |',
    '|---|---:|---:|',
    ...Object.entries(replicas.spent).map(([name, seconds]) => `| ${name} | ${(seconds / SECONDS).toFixed(2)} | ${((seconds * 1000) / Math.max(1, replicas.sessions.created)).toFixed(2)} |`),
  ].join('\n');
  return { markdown, failed: sessions.bad + replicas.sessions.bad };
}

/** The tail of the checkout row in words: how many answers were late, and how many of them came together. */
function lateLine(late) {
  return (
    `Answers more than ${late.marginMs} ms above the p50: ${fmtInt(late.late)} (${(late.share * 100).toFixed(1)}%), ` +
    `of which ${fmtInt(late.inWindows)} came in ${late.windows} windows of 100 ms holding ${late.together} or more each ` +
    `(every request in flight held up together; docs/benchmarks.md, "The tail at a steady state").`
  );
}

/**
 * The checkout row again with a second gateway process beside the stack's,
 * each taking half the buyers: the shape of a deployment, where the chart
 * runs several gateway pods (two by default). Percentiles are over both
 * halves' measured requests together.
 */
async function twoGateways({ headers, body }) {
  const port = await freePort();
  // Logging as the stack's gateway does (startService's default is warnings only): the same work per request.
  const second = await startService('gateway', 'second', { HTTP_PORT: String(port), LOG_LEVEL: process.env.LOG_LEVEL ?? 'info' }, { telemetry: true });
  try {
    const bases = [process.env.BASE_URL, `http://127.0.0.1:${port}`];
    await createSessions({ url: `${bases[1]}/checkout_sessions`, headers, body, connections: 8, seconds: 2 });
    let cpu;
    const onSteady = () => (cpu = cpuByProcess({ 'second gateway': [second.pid] }));
    const halves = await Promise.all(
      bases.map((base, index) =>
        createSessions({ url: `${base}/checkout_sessions`, headers, body, connections: CONCURRENCY / 2, seconds: SECONDS, rampSeconds: RAMP_SECONDS, onSteady: index === 0 ? onSteady : undefined }),
      ),
    );
    const spent = cpu.spent();
    const sum = (field) => halves.reduce((total, half) => total + half[field], 0);
    return { sessions: { rps: sum('rps'), ...mergedLatency(halves), total: sum('total'), bad: sum('bad'), created: sum('created') }, spent };
  } finally {
    await second.stop();
  }
}

// ---------------------------------------------------------------------------
// 2. Hold paths: Lua on Redis vs a row lock on PostgreSQL.

async function resetSchema(admin) {
  await admin.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
  await admin.query(`CREATE SCHEMA ${SCHEMA}`);
  await admin.query(`
    CREATE TABLE ${SCHEMA}.pools (
      id         bigint PRIMARY KEY,
      capacity   integer NOT NULL,
      available  integer NOT NULL CHECK (available >= 0)
    );
    CREATE TABLE ${SCHEMA}.holds (
      id          text PRIMARY KEY,
      pool_id     bigint NOT NULL REFERENCES ${SCHEMA}.pools (id),
      quantity    integer NOT NULL,
      expires_at  timestamptz NOT NULL,
      created_at  timestamptz NOT NULL DEFAULT now()
    );
  `);
  await admin.query(`INSERT INTO ${SCHEMA}.pools (id, capacity, available) VALUES (1, $1, $1)`, [BENCH_STOCK]);
  // inventory.holds as the migrations left it (columns, checks, partial indexes), without its
  // foreign key to the catalog: the durable row writes it through the service's own HoldRecords.
  await admin.query(`DROP SCHEMA IF EXISTS ${DURABLE_SCHEMA} CASCADE`);
  await admin.query(`CREATE SCHEMA ${DURABLE_SCHEMA}`);
  await admin.query(`CREATE TABLE ${DURABLE_SCHEMA}.holds (LIKE inventory.holds INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING INDEXES)`);
}

/** Deletes every Redis key of the benchmark's synthetic events (hold records, expiry indexes, counters). */
async function forgetBenchKeys(redis) {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `{ev:${EVENT_PREFIX}*`, 'COUNT', 5000);
    if (keys.length > 0) await redis.unlink(...keys);
    cursor = next;
  } while (cursor !== '0');
}

const availabilityKey = (eventId) => `{ev:${eventId}}:avail:1`;
const THRESHOLD = lowStockThreshold(BENCH_STOCK);


/**
 * One measurement that holds from a synthetic event's counter in Redis:
 * the earlier rows' holds are deleted first (so every row starts with the
 * same small data set), the counter is set to BENCH_STOCK, and afterwards it
 * must have moved by exactly the holds that succeeded (`held`; for
 * redis-benchmark, which reports no outcomes, the counter is the count).
 */
async function redisRow(redis, eventId, run) {
  await forgetBenchKeys(redis);
  await redis.set(availabilityKey(WARM_EVENT), BENCH_STOCK);
  await redis.set(availabilityKey(eventId), BENCH_STOCK);
  await redisSettled(redis);
  const before = await aofRewrites(redis);
  const result = await run();
  const rewrites = (await aofRewrites(redis)).started - before.started;
  const taken = BENCH_STOCK - Number(await redis.get(availabilityKey(eventId)));
  if (result.held !== undefined && taken !== result.held) throw new Error(`${eventId}: the counter moved by ${taken}, but ${result.held} holds succeeded`);
  return { ...result, taken, rewrites };
}

/** The rows during which Redis started rewriting its append-only file. */
function rewriteNote(rows) {
  const hit = rows.filter((row) => row.rewrites > 0).map((row) => `${row.short} (${row.rewrites})`);
  return `Redis AOF rewrites during a row: ${hit.length ? hit.join(', ') : 'none'}.`;
}

/** A `loopLoad` over `once`, with every call that did not hold counted as failed. */
async function holdLoad(once, workers, seconds) {
  let held = 0;
  const result = await loopLoad({
    once: async () => {
      await once();
      held += 1;
    },
    workers,
    seconds,
  });
  return { ...result, held };
}

/** One hold through the inventory's HoldBook script: 1 ticket, a fresh hold id, 15 minutes. */
const luaHold = (book, eventId) => async () => {
  const outcome = await book.hold(eventId, randomUUID(), [{ poolId: '1', quantity: 1, threshold: THRESHOLD }], new Date(Date.now() + HOLD_TTL_MS));
  if (!outcome.held) throw new Error(`not held: ${outcome.reason}`);
};

/** The classic hold: lock the pool row, take one, record the hold, in one transaction. */
const rowLockHold = (pool) => async () => {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query('SELECT available FROM pools WHERE id = $1 FOR UPDATE', [1]);
    if (rows[0].available < 1) throw new Error('short');
    await client.query('UPDATE pools SET available = available - $2 WHERE id = $1', [1, 1]);
    await client.query('INSERT INTO holds (id, pool_id, quantity, expires_at) VALUES ($1, $2, $3, $4)', [randomUUID(), 1, 1, new Date(Date.now() + HOLD_TTL_MS)]);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
};

/** HoldDesk's two writes: the durable hold row (HoldRecords, which gathers the holds of a tick into one INSERT), then the Lua hold. */
const durableHold = (records, book, eventId) => async () => {
  const id = randomUUID();
  const expiresAt = new Date(Date.now() + HOLD_TTL_MS);
  if (!(await records.record({ id, organisationId: 1, eventId: '1', pools: [{ pool_id: '1', quantity: 1 }], expiresAt }))) {
    throw new Error(`hold row ${id} already recorded`);
  }
  const outcome = await book.hold(eventId, id, [{ poolId: '1', quantity: 1, threshold: THRESHOLD }], expiresAt);
  if (!outcome.held) throw new Error(`not held: ${outcome.reason}`);
};

async function holdPaths(redis, pgPool, durablePool, admin) {
  const book = new HoldBook(redis);

  // Warm: connections, script cache, table pages. Then start from a clean slate.
  await loopLoad({ once: luaHold(book, WARM_EVENT), workers: 8, seconds: 1 });
  await loopLoad({ once: rowLockHold(pgPool), workers: 8, seconds: 1 });
  await admin.query(`TRUNCATE ${SCHEMA}.holds, ${DURABLE_SCHEMA}.holds`);
  await admin.query(`UPDATE ${SCHEMA}.pools SET available = capacity`);

  await redisSettled(redis);
  const rowLock = await holdLoad(rowLockHold(pgPool), CONCURRENCY, SECONDS);
  const { rows } = await admin.query(`SELECT available, (SELECT count(*)::int FROM ${SCHEMA}.holds) AS holds FROM ${SCHEMA}.pools WHERE id = 1`);
  if (BENCH_STOCK - rows[0].available !== rowLock.held || rows[0].holds !== rowLock.held) {
    throw new Error(`row lock: ${BENCH_STOCK - rows[0].available} taken and ${rows[0].holds} hold rows, but ${rowLock.held} holds succeeded`);
  }
  const luaEvent = `${EVENT_PREFIX}lua`;
  const lua = await redisRow(redis, luaEvent, () => holdLoad(luaHold(book, luaEvent), CONCURRENCY, SECONDS));
  const durableEvent = `${EVENT_PREFIX}durable`;
  const durable = await redisRow(redis, durableEvent, () => holdLoad(durableHold(new HoldRecords(durablePool), book, durableEvent), CONCURRENCY, SECONDS));
  const recorded = (await admin.query(`SELECT count(*)::int AS n FROM ${DURABLE_SCHEMA}.holds WHERE state = 'held'`)).rows[0].n;
  if (recorded !== durable.held) throw new Error(`durable: ${recorded} hold rows, but ${durable.held} holds succeeded`);

  const rows2 = [
    { name: `PostgreSQL row lock: BEGIN; SELECT … FOR UPDATE; UPDATE available; INSERT hold; COMMIT (pg Pool of ${PG_POOL_SIZE})`, ...rowLock },
    { name: 'Redis Lua hold: the inventory\'s HoldBook (concurrent holds gathered into script calls), 1 ticket, one ioredis connection', short: 'Lua', ...lua },
    { name: `Durable hold as HoldDesk does it: HoldRecords' hold row (the holds of a tick in one INSERT, pg Pool of ${PG_POOL_SIZE}), then the Lua hold (catalog reads left out)`, short: 'durable', ...durable },
  ];
  const markdown = [
    `**2. Hold paths.** ${CONCURRENCY} concurrent workers in one Node process, ${SECONDS} s each, 1 ticket per hold from one hot pool, a fresh hold id per call.`,
    '',
    table(rows2, rows2[0].name),
    '',
    `Lua / row lock: ${ratio(lua.rps, rowLock.rps)}; durable (PG row + Lua) / row lock: ${ratio(durable.rps, rowLock.rps)}. ${rewriteNote(rows2)}`,
  ].join('\n');
  return { markdown, failed: rowLock.bad + lua.bad + durable.bad };
}

// ---------------------------------------------------------------------------
// 3. The hold script alone: ioredis against redis-benchmark.

/** The hold script's text, as HoldBook defines it on its Redis client. */
function holdScript() {
  const scripts = {};
  new HoldBook({ defineCommand: (name, definition) => (scripts[name] = definition.lua) });
  return scripts.holdStock;
}

function runRedisBenchmark(args) {
  return new Promise((resolve, reject) => {
    execFile(REDIS_BENCHMARK, args, { timeout: 90_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`redis-benchmark failed: ${error.message}\n${stderr}`));
      else resolve(stdout);
    });
  });
}

/**
 * The last CSV line of redis-benchmark: the test name (the command, whose
 * JSON argument is not escaped) then rps, avg, min, p50, p95, p99, max.
 */
function parseRedisBenchmark(stdout) {
  const line = stdout.trim().split('\n').pop();
  const numbers = line.match(/"([\d.]+)","([\d.]+)","([\d.]+)","([\d.]+)","([\d.]+)","([\d.]+)","([\d.]+)"\s*$/);
  if (!numbers) throw new Error(`unexpected redis-benchmark output: ${stdout}`);
  const [rps, , , p50, , p99] = numbers.slice(1).map(Number);
  return { rps, p50, p99 };
}

async function holdScriptAlone(redis) {
  const script = holdScript();
  const sha = createHash('sha1').update(script).digest('hex');
  if ((await redis.script('LOAD', script)) !== sha) throw new Error('SCRIPT LOAD returned another sha');
  const redisUrl = new URL(process.env.REDIS_URL);

  // redis-benchmark: each client sends EVALSHA with the arguments HoldBook
  // sends; every __rand_int__ is a fresh random number below 2^31, so with
  // two of them each call is a new hold id (repeats are counted as failed).
  const benchEvent = `${EVENT_PREFIX}rbmk`;
  const expiresAt = String(Date.now() + HOLD_TTL_MS);
  const record = JSON.stringify({ pools: [{ poolId: '1', quantity: 1 }] });
  const holdId = '__rand_int__-__rand_int__-rbenchmark';
  const keys = [`{ev:${benchEvent}}:holds`, `{ev:${benchEvent}}:hold:${holdId}`, availabilityKey(benchEvent)];
  const connection = ['-h', loopbackOnly(redisUrl.hostname), '-p', redisUrl.port || '6379', ...(redisUrl.password ? ['-a', decodeURIComponent(redisUrl.password)] : [])];
  // One hold (the script takes a list): id, expiry, record, one pool whose counter is the third key, quantity 1, threshold.
  const command = ['EVALSHA', sha, String(keys.length), ...keys, '1', holdId, expiresAt, record, '1', '3', '1', String(THRESHOLD)];
  const redisBenchmark = async (clients, requests) =>
    parseRedisBenchmark(await runRedisBenchmark([...connection, '-c', String(clients), '-n', String(requests), '-r', '2147483647', '--csv', ...command]));
  await redis.set(availabilityKey(benchEvent), BENCH_STOCK);
  await redisBenchmark(8, 2000); // warm
  const benchmark = await redisRow(redis, benchEvent, () => redisBenchmark(CONCURRENCY, REDIS_BENCHMARK_REQUESTS));

  // Ours: HoldBook.hold (ioredis EVALSHA) at the same concurrency, on one
  // connection as the inventory service uses it, then on one connection per
  // call in flight, as redis-benchmark does.
  const book = new HoldBook(redis);
  const nodeEvent = `${EVENT_PREFIX}node`;
  await loopLoad({ once: luaHold(book, WARM_EVENT), workers: 8, seconds: 1 });
  const ours = await redisRow(redis, nodeEvent, () => holdLoad(luaHold(book, nodeEvent), CONCURRENCY, SECONDS / 2));

  const manyEvent = `${EVENT_PREFIX}many`;
  const clients = Array.from({ length: CONCURRENCY }, () => new Redis(process.env.REDIS_URL));
  let many;
  try {
    const books = clients.map((client) => new HoldBook(client));
    await Promise.all(books.map((each) => luaHold(each, WARM_EVENT)()));
    // Each call takes an idle connection and gives it back: one call in flight per connection.
    const idle = [...books];
    const hold = async () => {
      const each = idle.pop();
      try {
        await luaHold(each, manyEvent)();
      } finally {
        idle.push(each);
      }
    };
    many = await redisRow(redis, manyEvent, () => holdLoad(hold, CONCURRENCY, SECONDS / 2));
  } finally {
    await Promise.all(clients.map((client) => client.quit()));
  }

  const rows = [
    {
      name: `redis-benchmark: EVALSHA of the hold script, ${CONCURRENCY} clients, -n ${REDIS_BENCHMARK_REQUESTS}`,
      short: 'redis-benchmark', ...benchmark, total: REDIS_BENCHMARK_REQUESTS, bad: REDIS_BENCHMARK_REQUESTS - benchmark.taken,
    },
    { name: `ioredis: HoldBook.hold, ${CONCURRENCY} concurrent calls on one connection, gathered into script calls (as the inventory service)`, short: 'one connection', ...ours },
    { name: `ioredis: HoldBook.hold, ${CONCURRENCY} connections, one call in flight each (as redis-benchmark)`, short: `${CONCURRENCY} connections`, ...many },
  ];
  const markdown = [
    `**3. The hold script alone.** The same EVALSHA for one hold (3 keys: expiry index, hold record, pool counter; hold id, expiry, record JSON, one pool, quantity 1, threshold), a new hold id per call, ${CONCURRENCY} concurrent calls; ` +
      `redis-benchmark is bounded by -n, ours by time (${SECONDS / 2} s). HoldBook sends the holds asked for together on one connection as one call of the same script (as the inventory service does); ` +
      `with one call in flight per connection each goes alone. For redis-benchmark, Failed is calls that did not take a ticket (a random hold id drawn twice).`,
    '',
    table(rows, rows[0].name),
    '',
    `Ours / redis-benchmark: ${ratio(ours.rps, benchmark.rps)} on one connection, ${ratio(many.rps, benchmark.rps)} on ${CONCURRENCY} connections. ${rewriteNote(rows)}`,
  ].join('\n');
  return { markdown, failed: rows[0].bad + ours.bad + many.bad };
}

// ---------------------------------------------------------------------------

async function main() {
  const budget = setTimeout(() => {
    console.error(`bench-onsale: still running after ${BUDGET_MS / 1000} s, giving up`);
    process.exit(1);
  }, BUDGET_MS);
  budget.unref();
  const started = Date.now();
  loadEnv();
  loopbackOnly(process.env.BASE_URL);
  loopbackOnly(process.env.DATABASE_URL);
  loopbackOnly(process.env.REDIS_URL);
  const load = os.loadavg()[0];

  const redis = new Redis(process.env.REDIS_URL);
  const admin = createPool({ url: process.env.DATABASE_URL, schema: SCHEMA, max: 1, applicationName: 'bench-onsale' });
  const pgPool = createPool({ url: process.env.DATABASE_URL, schema: SCHEMA, max: PG_POOL_SIZE, applicationName: 'bench-onsale' });
  const durablePool = createPool({ url: process.env.DATABASE_URL, schema: DURABLE_SCHEMA, max: PG_POOL_SIZE, applicationName: 'bench-onsale' });
  try {
    await forgetBenchKeys(redis);
    await redis.set(availabilityKey(WARM_EVENT), BENCH_STOCK);
    await resetSchema(admin);
    const versions = {
      redis: (await redis.info('server')).match(/redis_version:(\S+)/)?.[1],
      postgres: (await admin.query('SHOW server_version')).rows[0].server_version.split(' ')[0],
      aof: /aof_enabled:1/.test(await redis.info('persistence')) ? 'append-only file on' : 'no append-only file',
      synchronousCommit: (await admin.query('SHOW synchronous_commit')).rows[0].synchronous_commit,
    };

    const sections = [];
    await redisSettled(redis);
    const parts = [
      ['1', 'full stack', () => fullStack()],
      ['2', 'hold paths', () => holdPaths(redis, pgPool, durablePool, admin)],
      ['3', 'hold script alone', () => holdScriptAlone(redis)],
    ];
    for (const [part, name, measure] of parts.filter(([part]) => PARTS.has(part))) {
      console.log(`bench-onsale: ${part}/3 ${name}`);
      sections.push(await measure());
      console.log(sections.at(-1).markdown, '\n');
    }

    const machine =
      `${os.cpus()[0]?.model ?? 'unknown CPU'}, shared by the five services, PostgreSQL ${versions.postgres} (synchronous_commit ${versions.synchronousCommit}), ` +
      `Redis ${versions.redis} (${versions.aof}), Kafka and the load generator; load average ${load.toFixed(2)} at the start; the whole run took ${Math.round((Date.now() - started) / 1000)} s.`;
    if (PARTS.size === 3) record('onsale', [machine, '', ...sections.flatMap((section) => [section.markdown, ''])].join('\n').trimEnd());
    const failed = sections.reduce((sum, section) => sum + section.failed, 0);
    if (failed > 0) throw new Error(`${failed} calls failed (see the tables)`);
  } finally {
    await forgetBenchKeys(redis).catch(() => undefined);
    await admin.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`).catch(() => undefined);
    await admin.query(`DROP SCHEMA IF EXISTS ${DURABLE_SCHEMA} CASCADE`).catch(() => undefined);
    await pgPool.end();
    await durablePool.end();
    await admin.end();
    await redis.quit();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
