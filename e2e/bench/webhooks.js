// make bench-webhooks: live webhook deliveries through the running stack
// (events on the Kafka topic → the webhooks service's consumer stores each
// once, routes it and sends its first attempts → signed POSTs) to a receiver
// on loopback, against the same signed POSTs sent straight to that receiver
// with undici at the same concurrency, measured in the same run. The ratio
// is what durability (PostgreSQL rows per event and attempt, Kafka) and the
// service's own work cost against the HTTP work alone. Both send the
// spec's delivery request, built by the service's own `deliveryHeaders`
// (nine headers, both signatures; decision D379); a minimal signed POST
// (two headers, one signature) is measured in every round beside it, for
// reference. The durable floor
// (webhook-floor.js) is measured the same way, as the bound of any durable
// design on the same machine. Then a steady
// rate (200 events a second for 30 s), as an on-sale's checkouts produce
// them, with latency from each event's scheduled produce to its arrival.
// Bounded in events and time; stops by itself.
const { fork } = require('node:child_process');
const { createHmac, randomBytes } = require('node:crypto');
const http = require('node:http');
const path = require('node:path');
const { performance } = require('node:perf_hooks');
const { setTimeout: sleep } = require('node:timers/promises');
const { Pool } = require('pg');
const { Kafka, logLevel } = require('kafkajs');
const { Agent, request } = require('undici');
const { KeyAdmin, KeyRepository, Organisations } = require('@partner-api/gateway');
const { cpuByProcess, fmt, loadEnv, serviceDeliveryHeaders, startService, record } = require('./lib');

const EVENTS = Number(process.env.BENCH_EVENTS ?? 3000);
// The webhooks service sends up to WEBHOOK_CONCURRENCY (64) at once per process; the baseline uses as many.
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 64);
const STEADY_RATE = Number(process.env.BENCH_STEADY_RATE ?? 200);
const STEADY_SECONDS = Number(process.env.BENCH_STEADY_SECONDS ?? 30);
/** The steady run's target: an event reaches its receiver within this of its commit, at p99. */
const STEADY_P99_MS = 200;
const DEADLINE_MS = 120_000;
/**
 * Each configuration is measured in this many rounds of a direct run and a
 * burst, one after the other, and its ratio is the median of the rounds'
 * ratios: the machine's load drifts within seconds (the direct baseline
 * alone has moved between 4,300 and 7,000 a second in one half hour), and a
 * pair taken together sees the same drift on both sides.
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
/**
 * Events sent through the stack, unmeasured, before each burst: `make up`
 * has just restarted the services, and their JIT settles only after a few
 * thousand deliveries (a burst right after 1,000 ran 20-30% slower than the
 * next one). The webhooks pods of an on-sale have been running for longer.
 */
const WARM_UP_EVENTS = 2 * EVENTS;
const GROUP_ID = process.env.KAFKA_GROUP_ID ?? 'partner-api-webhooks';
const TOPIC = process.env.KAFKA_TOPIC ?? 'partner.events.v1';

/** A receiver that answers 200 at once and notes when each event arrived. */
async function startReceiver() {
  const arrived = new Map();
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const event = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      if (!arrived.has(event.id)) arrived.set(event.id, { at: performance.now(), sentAt: event.data.object.bench_sent_at });
      res.writeHead(200).end();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}/hooks`, arrived, close: () => server.close() };
}

const newEventId = () => `evt_bench_${randomBytes(12).toString('hex')}`;

const eventBody = (organisationId, sentAt, id = newEventId()) =>
  JSON.stringify({
    id,
    object: 'event',
    type: 'ticket.issued',
    api_version: '2026-10-18',
    created: Math.floor(Date.now() / 1000),
    livemode: true,
    organisation_id: organisationId,
    data: { object: { object: 'ticket', id: 1, bench_sent_at: sentAt } },
  });

/** Throughput and latency over the arrivals of one run. */
function summarise(receiver, startedAt, expected) {
  const arrivals = [...receiver.arrived.values()].filter((entry) => entry.at >= startedAt);
  const latencies = arrivals.map((entry) => entry.at - entry.sentAt).sort((a, b) => a - b);
  const lastAt = Math.max(...arrivals.map((entry) => entry.at));
  const firstAt = Math.min(...arrivals.map((entry) => entry.at));
  const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return {
    rps: arrivals.length / ((lastAt - startedAt) / 1000),
    p50: at(0.5),
    p99: at(0.99),
    total: arrivals.length,
    bad: expected - arrivals.length,
    firstMs: firstAt - startedAt,
  };
}

async function waitForArrivals(receiver, expected) {
  const deadline = Date.now() + DEADLINE_MS;
  while (receiver.arrived.size < expected && Date.now() < deadline) await sleep(20);
}

/**
 * How a direct POST is made. `spec`: the request the service sends (the
 * spec's delivery headers and the Standard Webhooks ones, both signed, with
 * its content type and user agent). `minimal`: a content type and one
 * signature, the least a signed POST carries.
 */
const DIRECT_REQUESTS = {
  spec: (id, body, secret) => serviceDeliveryHeaders({ id, type: 'ticket.issued' }, body, secret),
  minimal: (id, body, secret) => {
    const t = Math.floor(Date.now() / 1000);
    return { 'content-type': 'application/json', 'service-signature': `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}` };
  },
};

/** The baseline: signed POSTs straight from here, CONCURRENCY at a time, with the headers `shape` names. */
async function directPosts(receiver, organisationId, secret, shape = 'spec') {
  const headersFor = DIRECT_REQUESTS[shape];
  const agent = new Agent({ connections: CONCURRENCY });
  const startedAt = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < EVENTS) {
        next += 1;
        const id = newEventId();
        const body = eventBody(organisationId, performance.now(), id);
        const response = await request(receiver.url, { method: 'POST', dispatcher: agent, body, headers: headersFor(id, body, secret) });
        await response.body.dump();
      }
    }),
  );
  await agent.close();
  return summarise(receiver, startedAt, EVENTS);
}

/** The pipeline: events produced to the topic as the outbox relays do, delivered by the stack's webhooks service. */
async function throughStack(receiver, organisationId, events = EVENTS, topic = TOPIC) {
  const producer = new Kafka({ clientId: 'bench-webhooks', brokers: process.env.KAFKA_BROKERS.split(','), logLevel: logLevel.NOTHING }).producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  const startedAt = performance.now();
  for (let sent = 0; sent < events; sent += 500) {
    const sentAt = performance.now();
    const messages = Array.from({ length: Math.min(500, events - sent) }, (_, index) => ({ key: `ticket:${sent + index}`, value: eventBody(organisationId, sentAt) }));
    await producer.send({ topic, acks: -1, messages });
  }
  await producer.disconnect();
  await waitForArrivals(receiver, events);
  return summarise(receiver, startedAt, events);
}

/**
 * A steady rate: every 10 ms the events due by then are produced, each
 * stamped with the time it was due (not when the producer got to it), so a
 * pipeline that falls behind shows it in its latency.
 */
async function steadyRate(receiver, organisationId) {
  const producer = new Kafka({ clientId: 'bench-webhooks-steady', brokers: process.env.KAFKA_BROKERS.split(','), logLevel: logLevel.NOTHING }).producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  const total = STEADY_RATE * STEADY_SECONDS;
  const startedAt = performance.now();
  for (let produced = 0; produced < total; ) {
    const dueNow = Math.min(total, Math.floor(((performance.now() - startedAt) / 1000) * STEADY_RATE));
    if (dueNow > produced) {
      const messages = [];
      for (; produced < dueNow; produced += 1) messages.push({ key: `ticket:${produced}`, value: eventBody(organisationId, startedAt + (produced / STEADY_RATE) * 1000) });
      await producer.send({ topic: TOPIC, acks: -1, messages });
    }
    await sleep(10);
  }
  await producer.disconnect();
  await waitForArrivals(receiver, total);
  return summarise(receiver, startedAt, total);
}

/** Waits until the webhooks consumer group is stable with `members` members (a process joined or left). */
async function groupSettled(members) {
  const admin = new Kafka({ clientId: 'bench-webhooks-admin', brokers: process.env.KAFKA_BROKERS.split(','), logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const { groups } = await admin.describeGroups([GROUP_ID]);
      if (groups[0]?.state === 'Stable' && groups[0].members.length === members) return;
      if (Date.now() > deadline) throw new Error(`the webhooks group did not settle with ${members} members (${groups[0]?.state}, ${groups[0]?.members.length})`);
      await sleep(250);
    }
  } finally {
    await admin.disconnect();
  }
}

/** CPU per delivery of each process over the bursts of several configurations, side by side, as table rows. */
function cpuTable(...configurations) {
  const cells = (bursts, name) => (bursts.spent[name] === undefined ? ' – | – |' : ` ${(bursts.spent[name] / bursts.seconds).toFixed(2)} | ${((bursts.spent[name] * 1000) / bursts.deliveries).toFixed(3)} |`);
  return [...new Set(configurations.flatMap((bursts) => Object.keys(bursts.spent)))]
    .filter((name) => configurations.some((bursts) => (bursts.spent[name] ?? 0) > 0))
    .map((name) => `| ${name === 'load generator (this process)' ? 'producer and receiver (this process)' : name} |${configurations.map((bursts) => cells(bursts, name)).join('')}`);
}

/** A burst through the stack, with the CPU each process spent on it. */
async function measuredBurst(receiver, organisationId, extra = {}, topic = TOPIC) {
  const cpu = cpuByProcess(extra);
  const startedAt = performance.now();
  const result = await throughStack(receiver, organisationId, EVENTS, topic);
  return { ...result, seconds: (performance.now() - startedAt) / 1000, spent: cpu.spent() };
}

/** A direct run, with the CPU the machine spent on it. */
async function measuredDirect(receiver, organisationId, secret, shape = 'spec') {
  const cpu = cpuByProcess();
  const startedAt = performance.now();
  const result = await directPosts(receiver, organisationId, secret, shape);
  return { ...result, seconds: (performance.now() - startedAt) / 1000, spent: cpu.spent() };
}

/**
 * The ratio over all rounds taken apart: deliveries a second against direct
 * POSTs a second is (cores the bursts kept busy ÷ cores direct kept busy) ×
 * (CPU per direct POST ÷ CPU per delivery), exactly. The first factor is at
 * most 2 on two cores (direct is one process, a burst spreads over several);
 * the second is what each delivery costs the machine against a bare POST.
 */
function ratioFactors(rounds) {
  const sum = (side, of) => rounds.reduce((total, round) => total + of(round[side]), 0);
  const side = (name) => {
    const seconds = sum(name, (run) => run.seconds);
    const cpu = sum(name, (run) => run.spent.total);
    return { rate: sum(name, (run) => run.total) / seconds, busy: cpu / seconds, cpuMs: (cpu * 1000) / sum(name, (run) => run.total) };
  };
  const direct = side('direct');
  const burst = side('burst');
  return { ratio: burst.rate / direct.rate, parallelism: burst.busy / direct.busy, cost: direct.cpuMs / burst.cpuMs, direct, burst };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/** ROUNDS of a minimal direct run (for reference), a direct run (the baseline) and a burst through the stack, back to back. */
async function alternatedRounds({ baselineReceiver, stackReceiver, organisationId, secret, extra, topic = TOPIC }) {
  const rounds = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    baselineReceiver.arrived.clear();
    const minimal = await measuredDirect(baselineReceiver, organisationId, secret, 'minimal');
    baselineReceiver.arrived.clear();
    const direct = await measuredDirect(baselineReceiver, organisationId, secret);
    stackReceiver.arrived.clear();
    const burst = await measuredBurst(stackReceiver, organisationId, extra, topic);
    rounds.push({ minimal, direct, burst, ratio: burst.rps / direct.rps, ofMinimal: burst.rps / minimal.rps });
  }
  return rounds;
}

/** The rounds of one configuration in one row each for direct and the stack: medians, and every round's ratio. */
function summariseRounds(rounds) {
  const of = (side, key) => median(rounds.map((round) => round[side][key]));
  const row = (side) => ({
    rps: of(side, 'rps'),
    p50: of(side, 'p50'),
    p99: of(side, 'p99'),
    firstMs: of(side, 'firstMs'),
    total: rounds.reduce((sum, round) => sum + round[side].total, 0),
    bad: rounds.reduce((sum, round) => sum + round[side].bad, 0),
  });
  const spent = {};
  for (const { burst } of rounds) for (const [name, seconds] of Object.entries(burst.spent)) spent[name] = (spent[name] ?? 0) + seconds;
  return {
    minimal: row('minimal'),
    direct: row('direct'),
    burst: row('burst'),
    ratio: median(rounds.map((round) => round.ratio)),
    ofMinimal: median(rounds.map((round) => round.ofMinimal)),
    ratios: rounds.map((round) => round.ratio.toFixed(2)),
    cpu: { spent, seconds: rounds.reduce((sum, round) => sum + round.burst.seconds, 0), deliveries: rounds.reduce((sum, round) => sum + round.burst.total, 0) },
    factors: ratioFactors(rounds),
  };
}

/** The figures as a markdown table: each stack row with its ratio to the direct row above it. */
function roundsTable(rows) {
  const lines = [
    '| Path | Requests/s | p50 ms | p99 ms | First arrival ms | Requests | Failed | Of direct (median of rounds) | Each round |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const row of rows) {
    const ratio = row.ratio === undefined ? (row.fixedRate ? '(fixed rate)' : row.reference ? '(reference)' : '1.00 (baseline)') : fmt(row.ratio, 2);
    const first = row.firstMs === undefined ? '' : fmt(row.firstMs, 0);
    lines.push(`| ${row.name} | ${fmt(row.rps, 0)} | ${fmt(row.p50)} | ${fmt(row.p99)} | ${first} | ${row.total} | ${row.bad} | ${ratio} | ${row.ratios?.join(', ') ?? ''} |`);
  }
  return lines.join('\n');
}

const FLOOR_SCHEMA = 'bench_webhook_floor';

/**
 * The floor (e2e/bench/webhook-floor.js) in a process of its own, reading a
 * topic of its own (as many partitions and replicas as the service's) and
 * writing tables made like the service's in a schema of its own. Both go
 * when it stops.
 */
async function startFloor() {
  const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 1 });
  const admin = new Kafka({ clientId: 'bench-webhook-floor-admin', brokers: process.env.KAFKA_BROKERS.split(','), logLevel: logLevel.NOTHING }).admin();
  const topic = `bench.webhook-floor.${randomBytes(4).toString('hex')}`;
  await pool.query(`DROP SCHEMA IF EXISTS ${FLOOR_SCHEMA} CASCADE`);
  await pool.query(`CREATE SCHEMA ${FLOOR_SCHEMA}`);
  await pool.query(`CREATE TABLE ${FLOOR_SCHEMA}.events (LIKE webhooks.events INCLUDING ALL)`);
  await pool.query(`CREATE TABLE ${FLOOR_SCHEMA}.deliveries (LIKE webhooks.deliveries INCLUDING ALL)`);
  // Its own ids, not the service's sequence.
  await pool.query(`CREATE SEQUENCE ${FLOOR_SCHEMA}.deliveries_id_seq OWNED BY ${FLOOR_SCHEMA}.deliveries.id`);
  await pool.query(`ALTER TABLE ${FLOOR_SCHEMA}.deliveries ALTER COLUMN id SET DEFAULT nextval('${FLOOR_SCHEMA}.deliveries_id_seq')`);
  await admin.connect();
  const [service] = (await admin.fetchTopicMetadata({ topics: [TOPIC] })).topics;
  const partitions = service.partitions.length;
  await admin.createTopics({ waitForLeaders: true, topics: [{ topic, numPartitions: partitions, replicationFactor: service.partitions[0].replicas.length }] });
  const child = fork(path.join(__dirname, 'webhook-floor.js'), [], {
    env: { ...process.env, FLOOR_SCHEMA, FLOOR_TOPIC: topic, FLOOR_PARTITIONS: String(partitions), FLOOR_GROUP_ID: `${topic}.group`, FLOOR_CONCURRENCY: String(CONCURRENCY) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  await Promise.race([
    new Promise((resolve) => child.once('message', resolve)),
    exited.then((code) => Promise.reject(new Error(`the floor process exited with ${code} while starting`))),
  ]);
  return {
    topic,
    pid: child.pid,
    async stop() {
      child.kill('SIGTERM');
      await Promise.race([exited, sleep(10_000).then(() => child.kill('SIGKILL'))]);
      await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
      await admin.disconnect();
      await pool.query(`DROP SCHEMA ${FLOOR_SCHEMA} CASCADE`);
      await pool.end();
    },
  };
}

async function api(path, key, options = {}) {
  const response = await fetch(`${process.env.BASE_URL}${path}`, {
    method: options.method ?? 'GET',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  if (!response.ok) throw new Error(`${options.method ?? 'GET'} ${path} answered ${response.status}: ${await response.text()}`);
  return response.status === 204 ? null : response.json();
}

async function main() {
  loadEnv();
  const pool = new Pool({ connectionString: process.env.DATABASE_URL, options: '-c search_path=gateway', max: 1 });
  const admin = new KeyAdmin(new KeyRepository(pool));
  // An organisation of its own: no other endpoint sees these events, and nothing else reaches this receiver.
  const organisation = await new Organisations(new KeyRepository(pool)).create('Webhook benchmark', `bench-webhooks-${randomBytes(4).toString('hex')}`);
  const { secret: key } = await admin.issueKey({ organisationId: organisation.id, name: 'benchmark', mode: 'live', scopes: ['webhooks:manage'], rateLimit: 10_000_000 });
  await pool.end();

  const baselineReceiver = await startReceiver();
  const stackReceiver = await startReceiver();
  const endpoint = await api('/webhook_endpoints', key, { method: 'POST', body: { url: stackReceiver.url, event_types: ['ticket.issued'] } });
  try {
    // Both paths warmed first (JIT, connections, pools), as after a service has run for a while.
    await throughStack(stackReceiver, organisation.id, WARM_UP_EVENTS);
    stackReceiver.arrived.clear();
    await directPosts(baselineReceiver, organisation.id, endpoint.secret);
    await directPosts(baselineReceiver, organisation.id, endpoint.secret, 'minimal');
    const one = summariseRounds(await alternatedRounds({ baselineReceiver, stackReceiver, organisationId: organisation.id, secret: endpoint.secret, extra: {} }));
    // The same with a second webhooks process beside the stack's (as the chart's second pod runs): partitions and claims split between them.
    stackReceiver.arrived.clear();
    const second = await startService('webhooks', 'second', { WEBHOOK_ALLOW_LOOPBACK_RECEIVERS: 'true' }, { telemetry: true });
    let two;
    try {
      await groupSettled(2);
      await throughStack(stackReceiver, organisation.id, WARM_UP_EVENTS);
      two = summariseRounds(
        await alternatedRounds({ baselineReceiver, stackReceiver, organisationId: organisation.id, secret: endpoint.secret, extra: { 'webhooks (second process)': [second.pid] } }),
      );
    } finally {
      await second.stop();
    }
    await groupSettled(1);
    // The least any durable pipeline does, measured the same way (e2e/bench/webhook-floor.js): what the service's ratio is bounded by on this machine.
    stackReceiver.arrived.clear();
    const floorProcess = await startFloor();
    let floor;
    try {
      await throughStack(stackReceiver, organisation.id, WARM_UP_EVENTS, floorProcess.topic);
      floor = summariseRounds(
        await alternatedRounds({ baselineReceiver, stackReceiver, organisationId: organisation.id, secret: endpoint.secret, extra: { 'durable floor (its own process)': [floorProcess.pid] }, topic: floorProcess.topic }),
      );
    } finally {
      await floorProcess.stop();
    }
    const direct = `the service's signed POSTs (nine headers, two signatures) straight to the receiver (undici, ${CONCURRENCY} at a time)`;
    const minimal = 'minimal signed POSTs (two headers, one signature), the same way';
    const rows = [
      { name: `${minimal}, rounds of one process`, ...one.minimal, firstMs: undefined, reference: true },
      { name: `${direct}, rounds of one process`, ...one.direct, firstMs: undefined },
      { name: `burst: ${EVENTS} events on Kafka → webhooks service (store and route, sign, POST, record)`, ...one.burst, ratio: one.ratio, ratios: one.ratios },
      { name: `${minimal}, rounds of two processes`, ...two.minimal, firstMs: undefined, reference: true },
      { name: `${direct}, rounds of two processes`, ...two.direct, firstMs: undefined },
      { name: `burst: the same through 2 webhooks processes`, ...two.burst, ratio: two.ratio, ratios: two.ratios },
      { name: `${minimal}, rounds of the floor`, ...floor.minimal, firstMs: undefined, reference: true },
      { name: `${direct}, rounds of the floor`, ...floor.direct, firstMs: undefined },
      {
        name: 'floor: the same events through the least a durable pipeline does (per chunk of 250: store and route in one statement, sign and POST, record the attempts in one statement)',
        ...floor.burst,
        ratio: floor.ratio,
        ratios: floor.ratios,
      },
    ];
    stackReceiver.arrived.clear();
    const steady = { name: `steady: ${STEADY_RATE} events/s for ${STEADY_SECONDS} s → webhooks service`, ...(await steadyRate(stackReceiver, organisation.id)), firstMs: undefined, fixedRate: true };
    rows.push(steady);
    const markdown = [
      `${EVENTS} events in one burst, in ${ROUNDS} rounds each back to back with a direct run, through one webhooks process and then two; then ${STEADY_RATE} a second for ${STEADY_SECONDS} s. ` +
        'One endpoint, receiver on loopback answering 200 at once; latency from produce (or send; for the steady rate, the moment each event was due) to arrival. ' +
        'Figures of rounds are medians; "First arrival" is from the first produce to the first delivery.',
      '',
      roundsTable(rows),
      '',
      `Burst: ${Math.round(one.burst.rps)} deliveries/s (${one.ratio.toFixed(2)} of direct) through one webhooks process, ` +
        `${Math.round(two.burst.rps)}/s (${two.ratio.toFixed(2)}) through two; the durable floor ${Math.round(floor.burst.rps)}/s (${floor.ratio.toFixed(2)}). ` +
        `Of the minimal POST (medians of the same rounds): ${one.ofMinimal.toFixed(2)} through one process, ${two.ofMinimal.toFixed(2)} through two, ${floor.ofMinimal.toFixed(2)} for the floor. Steady rate: p99 ${steady.p99.toFixed(0)} ms from commit to receiver (target ≤ ${STEADY_P99_MS} ms).`,
      '',
      'Where the CPU of the bursts went (CPU seconds of each process from each first produce to its last arrival, over all rounds, per delivery):',
      '',
      `| Process | One webhooks process: cores busy (${one.cpu.seconds.toFixed(1)} s) | CPU ms per delivery | Two: cores busy (${two.cpu.seconds.toFixed(1)} s) | CPU ms per delivery | Floor: cores busy (${floor.cpu.seconds.toFixed(1)} s) | CPU ms per delivery |`,
      '|---|---:|---:|---:|---:|---:|---:|',
      ...cpuTable(one.cpu, two.cpu, floor.cpu),
      '',
      'The ratio over all rounds, taken apart: (cores busy in the bursts ÷ cores busy in the direct runs) × (CPU per direct POST ÷ CPU per delivery), every process of the machine counted. ' +
        'On two cores the first factor is at most 2, so ≥ 0.5 of direct needs a delivery to cost at most four direct POSTs (a second factor of 0.25 or more).',
      '',
      '| Configuration | Ratio over all rounds | Cores busy: bursts / direct | Parallelism factor | CPU ms: per direct POST / per delivery | Cost factor |',
      '|---|---:|---:|---:|---:|---:|',
      ...[
        ['one webhooks process', one.factors],
        ['two webhooks processes', two.factors],
        ['the durable floor', floor.factors],
      ].map(
        ([name, f]) =>
          `| ${name} | ${f.ratio.toFixed(2)} | ${f.burst.busy.toFixed(2)} / ${f.direct.busy.toFixed(2)} | ${f.parallelism.toFixed(2)} | ${f.direct.cpuMs.toFixed(3)} / ${f.burst.cpuMs.toFixed(3)} | ${f.cost.toFixed(3)} |`,
      ),
    ].join('\n');
    console.log(markdown);
    record('webhooks', markdown);
    const missing = rows.filter((row) => row.bad > 0);
    if (missing.length > 0) throw new Error(`${missing.map((row) => row.bad).join(' + ')} events were not delivered within ${DEADLINE_MS / 1000} s`);
  } finally {
    // Nothing more may be sent to a receiver that is going away.
    await api(`/webhook_endpoints/${endpoint.id}`, key, { method: 'DELETE' });
    baselineReceiver.close();
    stackReceiver.close();
    await removeRunEvents(organisation.id);
  }
}

/**
 * Deletes the run's stored events (its deliveries went with its endpoint).
 * The feed keeps events 30 days, and each run adds about 48,000: left in
 * place, they would grow a developer's events table by hundreds of
 * thousands of rows that nobody reads.
 */
async function removeRunEvents(organisationId) {
  const pool = new Pool({ connectionString: process.env.DATABASE_URL, options: '-c search_path=webhooks', max: 1 });
  try {
    const { rowCount } = await pool.query('DELETE FROM events WHERE organisation_id = $1', [organisationId]);
    console.log(`removed the run's ${rowCount} stored events`);
  } finally {
    await pool.end();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
