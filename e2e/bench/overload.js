// make bench-overload: POST /checkout_sessions offered faster than the stack
// serves it, as in an on-sale rush (issue #37).
//
// Phase 0 measures the closed-loop capacity (bench-onsale's checkout row:
// 200 buyers each waiting for its answer). Then open-loop phases offer 0.5,
// 1, 2, 4 and 10 times that rate, 15 s each, every request given up after
// 10 s (vegeta, open-loop.js): arrivals do not wait for answers, so past
// capacity the excess has to be turned away or it queues. Per phase: the
// rate the generator kept, 201s per second and those answered within 1 s,
// latencies, answers by status and code, timeouts, how soon after the phase
// a light probe stream is answered in under 150 ms again, ghost holds
// (checkout sessions opened in the database that no buyer received) and
// the CPU of every process.
//
// Buyers send no Idempotency-Key unless run with --idempotency-keys (a fresh
// key per request). Everything targets loopback, is bounded in time and
// stops by itself; the run's holds are released and its rows removed at the
// end.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { setTimeout } = require('node:timers');
const { Redis } = require('ioredis');
const { createPool, randomBase62 } = require('@partner-api/shared');
const {
  checkoutBody, cpuByProcess, createSessions, loadEnv, loopbackOnly, redisSettled, record, releaseHolds, removeRunRows, setUpOnSale, sleep,
} = require('./lib');
const { attack, ghostCount, lastSentAt, listenDrops, phaseFigures, readResults, recoverySeconds, tailOf, vegetaBinary, writeTargets } = require('./open-loop');

const PHASE_SECONDS = Number(process.env.BENCH_OVERLOAD_SECONDS ?? 15);
const MULTIPLES = (process.env.BENCH_OVERLOAD_MULTIPLES ?? '0.5,1,2,4,10').split(',').map(Number);
const TIMEOUT_SECONDS = 10;
/** Phase 0 as bench-onsale's checkout row: this many buyers, each waiting for its answer, measured after the ramp. */
const CLOSED_LOOP_BUYERS = 200;
const CLOSED_LOOP_SECONDS = 10;
const CLOSED_LOOP_RAMP_SECONDS = 2;
/** The probe after each phase: a light open-loop stream of checkouts, 5% of capacity within these bounds (50 a window at 2,000/s). */
const probeRateFor = (capacity) => Math.max(10, Math.min(100, capacity * 0.05));
const PROBE_SECONDS = 10;
const RECOVERED_MS = 150;
/** A 201 answered later than this reaches a buyer who has given up or is about to ("fast" counts those within it). */
const FAST_MS = 1000;
/** Tickets in the pool: far more than every phase can hold at any rate this machine reaches, so no phase sells out. */
const STOCK = 5_000_000;
const BUDGET_MS = 8 * 60 * 1000;
const DEFAULTS = !process.env.BENCH_OVERLOAD_SECONDS && !process.env.BENCH_OVERLOAD_MULTIPLES;
const IDEMPOTENCY_KEYS = process.argv.includes('--idempotency-keys');

const fmtInt = (n) => Math.round(n).toLocaleString('en-AU');
const ms = (n) => (Number.isFinite(n) ? fmtInt(n) : 'n/a');
const label = (multiple) => `${multiple}x`;

/** The run's sessions in orders' table: how many, and the ids of those opened since `since` (ms) that still hold tickets. */
function sessionsOf(pool, organisationId) {
  return {
    count: async () => (await pool.query('SELECT count(*)::int AS n FROM orders.checkout_sessions WHERE organisation_id = $1', [organisationId])).rows[0].n,
    openedSince: async (since) =>
      // A session abandoned for a buyer who left (D444) is failed and its hold given back: only those still holding count.
      (await pool.query("SELECT id FROM orders.checkout_sessions WHERE organisation_id = $1 AND created_at >= to_timestamp($2 / 1000.0) AND status IN ('open', 'pending')", [organisationId, since])).rows.map((row) => row.id),
  };
}

/**
 * Waits until the stack has done all the work of the last phase: no new
 * session for two seconds (requests given up by their client may still be
 * queued in the gateway or services), and no Redis AOF rewrite running.
 */
async function settle(sessions, redis) {
  const deadline = Date.now() + 60_000;
  let last = await sessions.count();
  let still = 0;
  while (still < 2 && Date.now() < deadline) {
    await sleep(1000);
    const now = await sessions.count();
    still = now === last ? still + 1 : 0;
    last = now;
  }
  await redisSettled(redis);
}

/** The closed-loop rate of checkouts (bench-onsale's row), warm first. */
async function closedLoopCapacity({ url, headers, body }) {
  await createSessions({ url, headers, body, connections: 8, seconds: 2 });
  const load = await createSessions({ url, headers, body, connections: CLOSED_LOOP_BUYERS, seconds: CLOSED_LOOP_SECONDS, rampSeconds: CLOSED_LOOP_RAMP_SECONDS });
  const answers = Object.entries(load.statuses).map(([status, count]) => `${status}: ${fmtInt(count)}`);
  if (load.errors) answers.push(`connection errors: ${fmtInt(load.errors)}`);
  if (load.timeouts) answers.push(`timeouts: ${fmtInt(load.timeouts)}`);
  const closed = { ...load, answers: answers.join(', ') };
  console.log(`phase 0 (closed loop, ${CLOSED_LOOP_BUYERS} buyers): ${fmtInt(load.rps)} checkouts/s, p50 ${ms(load.p50)} ms, p99 ${ms(load.p99)} ms; answers (ramp included) ${closed.answers}`);
  return closed;
}

/**
 * One open-loop phase at `rate`: the attack, then from the moment it stops
 * sending the probe stream, both until every answer or timeout; then the
 * stack settles and the ghosts are counted.
 */
async function openLoopPhase({ binary, dir, multiple, rate, probeRate, target, sessions, redis }) {
  const name = label(multiple);
  const keys = (prefix) => (IDEMPOTENCY_KEYS ? (index) => ({ 'Idempotency-Key': `bench-overload-${prefix}-${index}` }) : undefined);
  const runId = randomBase62(10);
  const targets = path.join(dir, `${name}.targets`);
  const probeTargets = path.join(dir, `${name}-probe.targets`);
  writeTargets(targets, { ...target, count: Math.ceil(rate * PHASE_SECONDS * 1.1), eachHeaders: keys(`${runId}-${name}`) });
  writeTargets(probeTargets, { ...target, count: Math.ceil(probeRate * PROBE_SECONDS * 1.1), eachHeaders: keys(`${runId}-${name}-probe`) });

  const output = path.join(dir, `${name}.bin`);
  const probeOutput = path.join(dir, `${name}-probe.bin`);
  const startedAt = Date.now();
  const dropsBefore = listenDrops();
  const load = attack({ binary, targets, rate, seconds: PHASE_SECONDS, timeoutSeconds: TIMEOUT_SECONDS, output, name });
  const cpu = cpuByProcess({ 'vegeta (the load generator)': [load.pid] }, 'benchmark driver (this process)');
  await Promise.race([sleep(PHASE_SECONDS * 1000), load.done]);
  const spent = cpu.spent();
  const waited = cpu.waited();
  const probe = attack({ binary, targets: probeTargets, rate: probeRate, seconds: PROBE_SECONDS, timeoutSeconds: TIMEOUT_SECONDS, output: probeOutput, name: `${name}-probe` });
  await Promise.all([load.done, probe.done]);
  const dropped = dropsBefore === undefined ? undefined : listenDrops() - dropsBefore;

  const results = await readResults(binary, output);
  const probes = await readResults(binary, probeOutput);
  for (const file of [targets, probeTargets, output, probeOutput]) fs.rmSync(file, { force: true });
  const figures = phaseFigures(results, { rate, seconds: PHASE_SECONDS, fastMs: FAST_MS });
  const recovery = recoverySeconds(probes, { from: lastSentAt(results), underMs: RECOVERED_MS });
  // When it never gets under the bar, how far over it the end of the probe still was.
  const probeTail = tailOf(probes, { lastMs: 2000 });

  await settle(sessions, redis);
  const received = [...figures.ids, ...probes.filter((result) => result.status === 201).map((result) => result.id)];
  const ghosts = ghostCount(await sessions.openedSince(startedAt), received);
  return { multiple, name, ...figures, recovery, probeTail, ghosts, spent, waited, dropped };
}

function printPhase(phase, capacity) {
  const outcomes = Object.entries(phase.outcomes).sort(([, a], [, b]) => b - a).map(([outcome, count]) => `${outcome}: ${fmtInt(count)}`).join(', ');
  console.log(
    [
      `phase ${phase.name}: offered ${fmtInt(phase.offered)}/s, sent ${fmtInt(phase.achieved)}/s (${fmtInt(phase.sent)} requests)`,
      `  201/s ${fmtInt(phase.createdPerSecond)}; within 1 s ${fmtInt(phase.fastPerSecond)}/s (${(phase.fastPerSecond / capacity).toFixed(2)} of capacity); ` +
        `201 p50 ${ms(phase.created.p50)} ms, p99 ${ms(phase.created.p99)} ms; other answers (${fmtInt(phase.others.count)}) p99 ${ms(phase.others.p99)} ms; ` +
        `429s ${fmtInt(phase.rejected.count)} (p99 ${ms(phase.rejected.p99)} ms, ${fmtInt(phase.rejected.withRetryAfter)} with Retry-After)`,
      `  answers: ${outcomes}`,
      `  timeouts ${fmtInt(phase.timeouts)}, 5xx ${fmtInt(phase.serverErrors)}, no answer ${fmtInt(phase.noAnswer)}; ` +
        `p99 back under ${RECOVERED_MS} ms ${recoveryText(phase)} after the phase; ghost holds ${fmtInt(phase.ghosts)}; ` +
        `connections dropped at a full accept queue ${phase.dropped === undefined ? 'n/a' : fmtInt(phase.dropped)}`,
      `  CPU (cores busy while sending): ${Object.entries(phase.spent).filter(([name]) => name !== 'total').map(([name, seconds]) => `${name} ${(seconds / PHASE_SECONDS).toFixed(2)}`).join(', ')}`,
    ].join('\n'),
  );
}

const recoveryText = (phase) =>
  phase.recovery === null
    ? `not within ${PROBE_SECONDS} s (last 2 s: 201 p99 ${ms(phase.probeTail.p99)} ms${phase.probeTail.failed ? `, ${phase.probeTail.failed} not 201` : ''})`
    : `${phase.recovery.toFixed(1)} s`;

function markdown({ capacity, phases, machine }) {
  const processes = Object.keys(phases[0].spent);
  const head = (cells) => `| ${cells.join(' | ')} |`;
  return [
    machine,
    '',
    `Closed-loop capacity (phase 0, ${CLOSED_LOOP_BUYERS} buyers each waiting for its answer, ${CLOSED_LOOP_SECONDS} s after a ${CLOSED_LOOP_RAMP_SECONDS} s ramp): ` +
      `**${fmtInt(capacity.rps)} checkouts/s**, p50 ${ms(capacity.p50)} ms, p99 ${ms(capacity.p99)} ms; answers, ramp included: ${capacity.answers}. ` +
      `Open-loop phases of ${PHASE_SECONDS} s, ${TIMEOUT_SECONDS} s client timeout, ${IDEMPOTENCY_KEYS ? 'a fresh Idempotency-Key per request' : 'no Idempotency-Key'}; ` +
      `the probe after each sends ${fmtInt(probeRateFor(capacity.rps))} checkouts/s for ${PROBE_SECONDS} s:`,
    '',
    head(['Offered', 'Sent/s', '201/s', '201 within 1 s, /s', 'of capacity', '201 p50 ms', '201 p99 ms', 'Other answers p99 ms', '429 p99 ms', 'Timeouts', '5xx', 'No answer', 'p99 < 150 ms again after', 'Ghost holds']),
    `|---|${'---:|'.repeat(13)}`,
    ...phases.map((phase) =>
      head([
        `${fmtInt(phase.offered)}/s (${phase.name})`, fmtInt(phase.achieved), fmtInt(phase.createdPerSecond), fmtInt(phase.fastPerSecond), (phase.fastPerSecond / capacity.rps).toFixed(2),
        ms(phase.created.p50), ms(phase.created.p99), ms(phase.others.p99), ms(phase.rejected.p99), fmtInt(phase.timeouts), fmtInt(phase.serverErrors), fmtInt(phase.noAnswer),
        recoveryText(phase), fmtInt(phase.ghosts),
      ]),
    ),
    '',
    'Answers by status and error code (no answer: the connection failed before one came; timeout: none within 10 s):',
    '',
    ...phases.map((phase) => `- ${phase.name}: ${Object.entries(phase.outcomes).sort(([, a], [, b]) => b - a).map(([outcome, count]) => `${outcome} ${fmtInt(count)}`).join(', ')}.`),
    '',
    `Cores busy per process while each phase sent (${PHASE_SECONDS} s; CPU ms per request sent in brackets):`,
    '',
    head(['Process', ...phases.map((phase) => phase.name)]),
    `|---|${phases.map(() => '---:|').join('')}`,
    ...processes.map((name) =>
      head([name, ...phases.map((phase) => `${(phase.spent[name] / PHASE_SECONDS).toFixed(2)} (${((phase.spent[name] * 1000) / Math.max(1, phase.sent)).toFixed(2)})`)]),
    ),
    '',
    `Threads of each process runnable but waiting for a core, on average, while each phase sent (run-queue delay from \`/proc/<pid>/task/*/schedstat\`; ` +
      'a request read by a process whose threads wait is delayed by that wait, which no latency the process measures includes):',
    '',
    head(['Process', ...phases.map((phase) => phase.name)]),
    `|---|${phases.map(() => '---:|').join('')}`,
    ...processes.filter((name) => name !== 'total').map((name) => head([name, ...phases.map((phase) => (phase.waited[name] / PHASE_SECONDS).toFixed(2))])),
    '',
    `Connections the kernel dropped at a full accept queue (SYNs resent 1, 3, 7 s later): ${phases.map((phase) => `${phase.name} ${phase.dropped === undefined ? 'n/a' : fmtInt(phase.dropped)}`).join(', ')}.`,
  ].join('\n');
}

/** The one-line result (issue #37): capacity, then per multiple past capacity the fast rate and tails, then the run's totals. */
function summaryLine(capacity, phases) {
  const parts = phases
    .filter((phase) => phase.multiple > 1)
    .map(
      (phase) =>
        `${phase.name}: ${fmtInt(phase.fastPerSecond)}/s fast (${(phase.fastPerSecond / capacity).toFixed(2)} of capacity), p99 ${ms(phase.created.p99)} ms, ` +
        `rejected p99 ${phase.rejected.count ? `${ms(phase.rejected.p99)} ms` : 'n/a'}`,
    );
  const total = (field) => phases.reduce((sum, phase) => sum + phase[field], 0);
  return `overload: ${[`capacity ${fmtInt(capacity)}/s`, ...parts, `timeouts ${fmtInt(total('timeouts'))}`, `5xx ${fmtInt(total('serverErrors'))}`, `ghost holds ${fmtInt(total('ghosts'))}`].join('; ')}`;
}

async function main() {
  const budget = setTimeout(() => {
    console.error(`bench-overload: still running after ${BUDGET_MS / 1000} s, giving up`);
    process.exit(1);
  }, BUDGET_MS);
  budget.unref();
  const started = Date.now();
  loadEnv();
  const base = loopbackOnly(process.env.BASE_URL);
  loopbackOnly(process.env.DATABASE_URL);
  loopbackOnly(process.env.REDIS_URL);
  const load = os.loadavg()[0];
  const binary = vegetaBinary();

  const onSale = await setUpOnSale({ name: 'overload', title: 'Overload', capacity: STOCK });
  const pool = createPool({ url: process.env.DATABASE_URL, schema: 'orders', max: 1, applicationName: 'bench-overload' });
  const redis = new Redis(process.env.REDIS_URL);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-overload-'));
  let summary;
  try {
    const sessions = sessionsOf(pool, onSale.organisationId);
    const url = `${base}/checkout_sessions`;
    const headers = { authorization: `Bearer ${onSale.secret}` };
    const body = checkoutBody(onSale);
    const capacity = await closedLoopCapacity({ url, headers, body });
    await settle(sessions, redis);

    const target = { method: 'POST', url, headers: { Authorization: headers.authorization, 'Content-Type': 'application/json' }, body };
    const phases = [];
    for (const multiple of MULTIPLES) {
      const phase = await openLoopPhase({ binary, dir, multiple, rate: capacity.rps * multiple, probeRate: probeRateFor(capacity.rps), target, sessions, redis });
      printPhase(phase, capacity.rps);
      phases.push(phase);
    }

    const machine =
      `${os.cpus()[0]?.model ?? 'unknown CPU'}, ${os.cpus().length} cores shared by the five services, PostgreSQL, Redis, Kafka and the load generator (vegeta); ` +
      `load average ${load.toFixed(2)} at the start; the measurements took ${Math.round((Date.now() - started) / 1000)} s.`;
    const table = markdown({ capacity, phases, machine });
    console.log(`\n${table}\n`);
    if (DEFAULTS && !IDEMPOTENCY_KEYS) record('overload', table);
    summary = summaryLine(capacity.rps, phases);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
    await redis.quit();
    await pool.end();
    await releaseHolds(onSale);
    await removeRunRows(onSale);
  }
  console.log(summary);
}

if (require.main === module) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}

module.exports = { summaryLine };
