// Shared pieces of the benchmarks: load from a running system on loopback,
// bounded in time and connections, figures as a markdown table that is
// written into docs/benchmarks.md between the benchmark's markers.
const { spawn } = require('node:child_process');
const { clearTimeout, setTimeout } = require('node:timers');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const autocannon = require('autocannon');
const { Redis } = require('ioredis');
const { createPool, createServiceClient, deliveryHeaders, gen, localGrpcAddress, randomBase62, WEBHOOK_USER_AGENT } = require('@partner-api/shared');
const { KeyAdmin, KeyAdmission, KeyRepository, Organisations } = require('@partner-api/gateway');
const { freePort } = require('../support/ports');

const ROOT = path.join(__dirname, '..', '..');

/** .data/infra.env and .data/demo.env into process.env (set variables win). */
function loadEnv() {
  for (const file of ['infra.env', 'demo.env']) {
    const full = path.join(ROOT, '.data', file);
    if (!fs.existsSync(full)) throw new Error(`${full} is missing: run \`make up\` first`);
    for (const line of fs.readFileSync(full, 'utf8').split('\n')) {
      const at = line.indexOf('=');
      if (at > 0 && process.env[line.slice(0, at)] === undefined) process.env[line.slice(0, at)] = line.slice(at + 1);
    }
  }
}

const LOOPBACK = ['127.0.0.1', 'localhost', '::1', '[::1]'];

function assertLoopback(url) {
  const host = new URL(url).hostname;
  if (!LOOPBACK.includes(host)) throw new Error(`benchmarks target loopback only, not ${host}`);
}

/** The same rule for PostgreSQL, Redis and gRPC addresses (with or without a scheme); returns the address. */
function loopbackOnly(address) {
  assertLoopback(address.includes('://') ? address : `tcp://${address}`);
  return address;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** p50, p90, p99 and the maximum of latencies sorted ascending (0 when there are none). */
function percentiles(sorted) {
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return { p50: at(0.5), p90: at(0.9), p99: at(0.99), max: sorted.at(-1) ?? 0 };
}

/** What the gateway's shed answers say in `Retry-After` (ADMISSION_RETRY_AFTER_SECONDS). */
const RETRY_AFTER_MS = 1000;

/**
 * Holds back an autocannon connection's next request for `ms`. autocannon
 * emits a response before it sends the connection's next request
 * (`Client#_doRequest`), so that one call is replaced by a timer.
 */
function waitBeforeNextRequest(client, ms) {
  client._doRequest = function waitThenRequest() {
    delete client._doRequest;
    setTimeout(() => {
      if (!client.destroyed) client._doRequest();
    }, ms);
  };
}

/** HTTP GET load with autocannon: fixed duration and connections, stops by itself (steadyLoad with no ramp). */
const httpLoad = ({ url, headers, connections, seconds }) => steadyLoad({ url, headers, connections, seconds });

/**
 * Load at a steady state: autocannon runs `rampSeconds` + `seconds`, and the
 * figures count only requests sent after the ramp. At the start every
 * connection opens at once and sends its first request in the same
 * instant, into processes whose batching paths are not yet optimised for
 * batches that large: a burst no steady on-sale sees again (a deployed
 * gateway's callers are an ingress's kept-alive connections). The ramp is
 * reported on its own (`ramp`), not dropped. `onSteady` runs when the ramp
 * ends (to start CPU readings for the measured window). `rps` counts the
 * answers with status `expect` (any 2xx when not given); `bad` counts every
 * other answer, connection error and timeout of the whole run, ramp included
 * (`errors` are the connection errors other than timeouts).
 *
 * A buyer turned away (`429`) does what the spec asks and @partner-api/client
 * does (D435): it waits the `Retry-After` the gateway sends (1 s), up to
 * twice that with jitter, before its next request. A closed loop that
 * re-sent at once would make every shed answer a new request in the same
 * millisecond, a retry storm no real client sends, and measure that storm
 * instead of the stack.
 */
async function steadyLoad({ url, method = 'GET', headers, body, connections, seconds, rampSeconds = 0, expect, onSteady }) {
  assertLoopback(url);
  const wanted = (status) => (expect ? status === expect : status >= 200 && status < 300);
  const started = Date.now();
  const rampEnds = started + rampSeconds * 1000;
  /** When each measured answer came, with its latency: to see whether slow answers come alone or together. */
  const answers = [];
  const ramp = [];
  let bad = 0;
  let answered = 0;
  const statuses = {};
  let timer;
  if (onSteady && rampSeconds > 0) timer = setTimeout(onSteady, rampSeconds * 1000);
  else onSteady?.();
  const instance = autocannon({ url, method, headers, body, connections, duration: rampSeconds + seconds, pipelining: 1 });
  instance.on('response', (client, status, _bytes, latency) => {
    answered += 1;
    statuses[status] = (statuses[status] ?? 0) + 1;
    if (status === 429) waitBeforeNextRequest(client, RETRY_AFTER_MS * (1 + Math.random()));
    if (!wanted(status)) bad += 1;
    else if (Date.now() - latency < rampEnds) ramp.push(latency);
    else answers.push([Date.now(), latency]);
  });
  const result = await instance;
  clearTimeout(timer);
  const measuredSeconds = (started + (rampSeconds + seconds) * 1000 - rampEnds) / 1000;
  const latencies = answers.map(([, latency]) => latency).sort((a, b) => a - b);
  const rampTail = percentiles(ramp.sort((a, b) => a - b));
  return {
    rps: latencies.length / measuredSeconds,
    ...percentiles(latencies),
    created: latencies.length,
    // autocannon's errors include its timeouts: each counted once here, apart.
    total: answered + result.errors,
    bad: bad + result.errors,
    statuses,
    errors: result.errors - result.timeouts,
    timeouts: result.timeouts,
    ramp: { seconds: rampSeconds, answered: ramp.length, p99: rampTail.p99, max: rampTail.max },
    latencies,
    answers,
  };
}

/**
 * How the slow answers of a load came: those more than `marginMs` above
 * the p50, and how many of them arrived in 100 ms windows that held at
 * least `together` of them (a pause that held up every request in flight
 * at once, rather than requests slow on their own).
 */
function lateAnswers(load, { marginMs = 35, together = 50 } = {}) {
  const late = load.answers.filter(([, latency]) => latency > load.p50 + marginMs);
  const perWindow = new Map();
  for (const [at] of late) perWindow.set(Math.floor(at / 100), (perWindow.get(Math.floor(at / 100)) ?? 0) + 1);
  const crowded = [...perWindow.values()].filter((count) => count >= together);
  return { marginMs, together, late: late.length, share: late.length / Math.max(1, load.answers.length), windows: crowded.length, inWindows: crowded.reduce((sum, count) => sum + count, 0) };
}

/** Percentiles over several loads' measured requests together (e.g. buyers split over two gateways). */
function mergedLatency(loads) {
  return percentiles(loads.flatMap((load) => load.latencies).sort((a, b) => a - b));
}

/** `workers` loops calling `once` until `seconds` pass; latency per call. */
async function loopLoad({ once, workers, seconds }) {
  const latencies = [];
  let bad = 0;
  const deadline = Date.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (Date.now() < deadline) {
        const started = process.hrtime.bigint();
        try {
          await once();
        } catch {
          bad += 1;
        }
        latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
      }
    }),
  );
  return { rps: latencies.length / seconds, ...percentiles(latencies.sort((a, b) => a - b)), total: latencies.length, bad };
}

const fmt = (n, digits = 1) => n.toFixed(digits);

function table(rows, baselineName) {
  const baseline = rows.find((row) => row.name === baselineName);
  const lines = ['| Path | Requests/s | p50 ms | p99 ms | Requests | Failed | Throughput vs baseline |', '|---|---:|---:|---:|---:|---:|---:|'];
  for (const row of rows) {
    const ratio = row === baseline ? '1.00 (baseline)' : fmt(row.rps / baseline.rps, 2);
    lines.push(`| ${row.name} | ${fmt(row.rps, 0)} | ${fmt(row.p50)} | ${fmt(row.p99)} | ${row.total} | ${row.bad} | ${ratio} |`);
  }
  return lines.join('\n');
}

/** Replaces the section between `<!-- bench:NAME -->` markers in docs/benchmarks.md. */
function record(name, markdown) {
  const file = path.join(ROOT, 'docs', 'benchmarks.md');
  const start = `<!-- bench:${name} -->`;
  const end = `<!-- /bench:${name} -->`;
  const stamp = `Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${os.cpus().length} cores, Node ${process.version}.`;
  const block = `${start}\n${stamp}\n\n${markdown}\n${end}`;
  const current = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '# Benchmarks\n';
  const next = current.includes(start)
    ? current.replace(new RegExp(`${start}[\\s\\S]*?${end}`), block)
    : `${current.trimEnd()}\n\n${block}\n`;
  fs.writeFileSync(file, next);
}

/**
 * A process of one of our services of its own (built dist, `env` over
 * ours), ready once /readyz answers. `telemetry` preloads the tracing setup
 * as services.sh does (to compare with the stack's own processes).
 */
async function startService(service, name, env = {}, { telemetry = false } = {}) {
  const [grpcPort, opsPort] = [await freePort(), await freePort()];
  const logFile = path.join(ROOT, '.data', 'logs', `bench-${service}-${name}.log`);
  const log = fs.openSync(logFile, 'a');
  const flags = telemetry ? ['--require', '@partner-api/shared/telemetry/register'] : [];
  const child = spawn(process.execPath, [...flags, 'dist/main.js'], {
    cwd: path.join(ROOT, 'services', service),
    env: { ...process.env, GRPC_PORT: String(grpcPort), OPS_PORT: String(opsPort), LOG_LEVEL: 'warn', ...(telemetry ? { OTEL_SERVICE_NAME: service } : { OTEL_SDK_DISABLED: 'true' }), ...env },
    stdio: ['ignore', log, log],
  });
  const deadline = Date.now() + 30_000;
  for (;;) {
    const ready = await fetch(`http://127.0.0.1:${opsPort}/readyz`).then((answer) => answer.ok, () => false);
    if (ready) break;
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`${service} ${name} did not become ready (${logFile})`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return { address: `127.0.0.1:${grpcPort}`, pid: child.pid, stop: () => new Promise((resolve) => (child.exitCode !== null ? resolve() : (child.once('exit', resolve), child.kill('SIGTERM')))) };
}

/** An inventory process of its own (see startService). */
const startInventory = (name, env = {}) => startService('inventory', name, env);

const CLOCK_TICKS = 100;

/** CPU seconds (user + system) a process has used so far; 0 once it is gone. */
function cpuSeconds(pid) {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}

/** The pids of every process whose command name is `name` (e.g. every PostgreSQL backend). */
function pidsNamed(name) {
  return fs.readdirSync('/proc').filter((entry) => /^\d+$/.test(entry) && readComm(entry) === name).map(Number);
}
const readComm = (pid) => {
  try {
    return fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
};

/**
 * Seconds every thread of a process has spent runnable but waiting for a
 * core (the scheduler's run-queue delay, /proc/<pid>/task/<tid>/schedstat);
 * 0 once it is gone, or where the kernel keeps no schedstats.
 */
function runQueueSeconds(pid) {
  try {
    return fs.readdirSync(`/proc/${pid}/task`).reduce((sum, tid) => {
      try {
        return sum + Number(fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[1]) / 1e9;
      } catch {
        return sum;
      }
    }, 0);
  } catch {
    return 0;
  }
}

/**
 * A schema of the benchmark's own, made anew with the up half of every
 * migration in `dirs` (paths under the repository, in order), on a pool
 * whose search_path is that schema.
 */
async function migratedScratchSchema(pool, schema, dirs) {
  await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await pool.query(`CREATE SCHEMA ${schema}`);
  for (const dir of dirs.map((relative) => path.join(ROOT, relative))) {
    for (const file of fs.readdirSync(dir).sort()) await pool.query(fs.readFileSync(path.join(dir, file), 'utf8').split('-- Down Migration')[0]);
  }
}

/**
 * Per process of the stack (services from their pidfiles, every PostgreSQL
 * process, Redis, `extra` processes by name, this process named `self`), from now
 * on: `spent()` its CPU seconds, `waited()` its run-queue seconds.
 */
function cpuByProcess(extra = {}, self = 'load generator (this process)') {
  const service = (name) => () => [Number(fs.readFileSync(path.join(ROOT, '.data', 'run', `${name}.pid`), 'utf8'))];
  const groups = {
    gateway: service('gateway'),
    orders: service('orders'),
    inventory: service('inventory'),
    tickets: service('tickets'),
    webhooks: service('webhooks'),
    PostgreSQL: () => pidsNamed('postgres'),
    Redis: () => pidsNamed('redis-server'),
    Kafka: () => pidsNamed('java'),
    ...Object.fromEntries(Object.entries(extra).map(([name, pids]) => [name, () => pids])),
    [self]: () => [process.pid],
  };
  return { spent: usedSince(groups, cpuSeconds), waited: usedSince(groups, runQueueSeconds) };
}

/**
 * Starts measuring `measure` (seconds a process has used of something) for
 * each group of processes (`name → () => pids`); the function it returns
 * gives each group's seconds since then, and their total. Per pid, read
 * anew at both ends, so a process started meanwhile (a new PostgreSQL
 * backend) counts from zero, and one that ended never counts below zero.
 */
function usedSince(groups, measure) {
  const read = () => Object.fromEntries(Object.entries(groups).map(([name, list]) => [name, new Map(list().map((pid) => [pid, measure(pid)]))]));
  const before = read();
  return () => {
    const after = read();
    const used = Object.fromEntries(
      Object.keys(groups).map((name) => {
        const pids = new Set([...before[name].keys(), ...after[name].keys()]);
        return [name, [...pids].reduce((sum, pid) => sum + Math.max(0, (after[name].get(pid) ?? before[name].get(pid)) - (before[name].get(pid) ?? 0)), 0)];
      }),
    );
    used.total = Object.values(used).reduce((sum, seconds) => sum + seconds, 0);
    return used;
  };
}

/**
 * An on-sale of the benchmark's own: an organisation, a live key with a
 * limit that never bites, and a published event on sale now with one pool
 * of `capacity` tickets and one ticket type. `name` labels the rows
 * (organisation, key, event slug and connections) as the benchmark's.
 */
async function setUpOnSale({ name, title, capacity }) {
  const suffix = randomBase62(8).toLowerCase();
  const gatewayPool = createPool({ url: process.env.DATABASE_URL, schema: 'gateway', max: 2, applicationName: `bench-${name}` });
  const redis = new Redis(process.env.REDIS_URL);
  const inventory = createServiceClient(gen.inventory.InventoryService, loopbackOnly(process.env.INVENTORY_GRPC_ADDR ?? localGrpcAddress('inventory')));
  try {
    const admin = new KeyAdmin(new KeyRepository(gatewayPool), { pool: gatewayPool, notifier: new KeyAdmission(redis) });
    const organisation = await new Organisations(new KeyRepository(gatewayPool)).create(`Bench ${title}`, `bench-${name}-${suffix}`);
    const { secret } = await admin.issueKey({
      organisationId: organisation.id, name: `bench-${name}`, mode: 'live', scopes: ['orders:write', 'orders:read', 'events:read'], rateLimit: 1_000_000_000,
    });

    const ctx = { organisationId: organisation.id, mode: 'live', keyId: 0, requestId: `bench_${randomBase62(12)}` };
    const venue = await inventory.upsertVenue(
      { fields: { name: 'Bench Arena', slug: `bench-arena-${suffix}`, line1: '1 Loopback Road', locality: 'Melbourne', state: 'VIC', postalCode: '3000', country: 'AU' } },
      ctx,
    );
    const slug = `bench-${name}-${suffix}`;
    await inventory.upsertEvent(
      {
        fields: {
          slug, title: `Bench ${title}`, timezone: 'Australia/Melbourne', venueId: venue.id,
          startsAt: new Date(Date.now() + 60 * 86_400_000).toISOString(), onSaleAt: new Date(Date.now() - 60_000).toISOString(),
        },
      },
      ctx,
    );
    const pool = await inventory.upsertPool({ eventIdOrSlug: slug, fields: { name: 'General Admission', capacity: BigInt(capacity) } }, ctx);
    const type = await inventory.upsertTicketType({ eventIdOrSlug: slug, fields: { name: 'GA', price: '89.50', bookingFee: '4.50', maxPerOrder: 10, poolIds: [pool.id] } }, ctx);
    await inventory.changeEventStatus({ idOrSlug: slug, action: 'publish' }, ctx);
    return { organisationId: organisation.id, secret, slug, ticketTypeId: Number(type.id) };
  } finally {
    inventory.close();
    await redis.quit();
    await gatewayPool.end();
  }
}

/** The body of a checkout of one ticket of an on-sale from setUpOnSale. */
const checkoutBody = (onSale) => JSON.stringify({ event_id: onSale.slug, items: [{ ticket_type_id: onSale.ticketTypeId, quantity: 1 }] });

/**
 * POST /checkout_sessions at a steady state, closed loop (steadyLoad, the
 * same client as the GET baselines): 201s count as created, every other
 * answer as failed, reported by status.
 */
function createSessions({ url, headers, body, connections, seconds, rampSeconds = 0, onSteady }) {
  return steadyLoad({ url, method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body, connections, seconds, rampSeconds, expect: 201, onSteady });
}

/**
 * Deletes a run's released holds and its checkout sessions (its own
 * organisation's rows, nothing else): tens of thousands of each a run, which
 * would otherwise pile up in a developer's database and slow every later
 * suite that cleans up after itself. Runs after releaseHolds, so Redis
 * already holds none of them.
 */
async function removeRunRows({ organisationId }) {
  const pool = createPool({ url: process.env.DATABASE_URL, schema: 'orders', max: 1, applicationName: 'bench-cleanup' });
  try {
    const sessions = await pool.query('DELETE FROM orders.checkout_sessions WHERE organisation_id = $1', [organisationId]);
    const holds = await pool.query("DELETE FROM inventory.holds WHERE organisation_id = $1 AND state <> 'held'", [organisationId]);
    console.log(`removed the run's ${sessions.rowCount.toLocaleString('en-AU')} checkout sessions and ${holds.rowCount.toLocaleString('en-AU')} released holds`);
  } finally {
    await pool.end();
  }
}

/** AOF rewrites Redis has started: finished ones plus one running. */
async function aofRewrites(redis) {
  const info = await redis.info('persistence');
  const field = (name) => Number(info.match(new RegExp(`${name}:(\\d+)`))?.[1] ?? 0);
  return { started: field('aof_rewrites') + field('aof_rewrite_in_progress'), busy: field('aof_rewrite_in_progress') + field('aof_rewrite_scheduled') + field('rdb_bgsave_in_progress') > 0 };
}

/**
 * Redis here persists to an append-only file that it rewrites in a forked
 * child each time the file has doubled past 64 MB: every hundred thousand
 * holds or so. The child competes for the two cores, so a measurement
 * starts only once no rewrite (or save) is running.
 */
async function redisSettled(redis) {
  const deadline = Date.now() + 30_000;
  while ((await aofRewrites(redis)).busy && Date.now() < deadline) await sleep(250);
}

/**
 * Ends a run's holds on one event now instead of when their time runs out:
 * their expiry moves to now, and the stack's inventory sweeper releases
 * them on its usual path (the row, then Redis) while the benchmark waits.
 * Otherwise tens of thousands of holds expire together a quarter of an
 * hour later, in the middle of whatever runs next (a `make test`'s expiry
 * suites or another benchmark among them).
 */
async function releaseHolds({ organisationId, slug }) {
  const pool = createPool({ url: process.env.DATABASE_URL, schema: 'inventory', max: 1, applicationName: 'bench-release' });
  try {
    const event = '(SELECT id FROM events WHERE organisation_id = $1 AND slug = $2)';
    const started = Date.now();
    const deadline = Date.now() + 180_000;
    // Moved again on every look: a request of the run still queued in the stack can take a hold after the first move.
    const expireNow = async () => (await pool.query(`UPDATE holds SET expires_at = now() WHERE event_id = ${event} AND state = 'held' AND expires_at > now()`, [organisationId, slug])).rowCount;
    let moved = await expireNow();
    for (;;) {
      const { rows } = await pool.query(`SELECT count(*)::int AS held FROM holds WHERE event_id = ${event} AND state = 'held'`, [organisationId, slug]);
      if (rows[0].held === 0) break;
      if (Date.now() > deadline) throw new Error(`${rows[0].held} of the run's ${moved} holds were still held after 3 minutes (is the inventory sweeper running?)`);
      await new Promise((resolve) => setTimeout(resolve, 500));
      moved += await expireNow();
    }
    console.log(`released the run's ${moved.toLocaleString('en-AU')} holds in ${((Date.now() - started) / 1000).toFixed(1)} s (the inventory sweeper, expiry moved to now)`);
  } finally {
    await pool.end();
  }
}

/**
 * The headers of the request the webhooks service sends for attempt 1 of an
 * event (D379): its own `deliveryHeaders`, and the content type and user
 * agent its receiver client adds.
 */
function serviceDeliveryHeaders(event, body, secret) {
  return Object.assign(deliveryHeaders(event, 1, body, [secret], new Date()), { 'content-type': 'application/json', 'user-agent': WEBHOOK_USER_AGENT });
}

module.exports = { ROOT, LOOPBACK, serviceDeliveryHeaders, fmt, percentiles, loadEnv, loopbackOnly, sleep, migratedScratchSchema, httpLoad, steadyLoad, mergedLatency, lateAnswers, loopLoad, table, record, freePort, startService, startInventory, cpuSeconds, runQueueSeconds, pidsNamed, cpuByProcess, usedSince, releaseHolds, setUpOnSale, checkoutBody, createSessions, removeRunRows, aofRewrites, redisSettled };
