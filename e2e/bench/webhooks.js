// make bench-webhooks: live webhook deliveries through the running stack
// (events on the Kafka topic → the webhooks service's consumer stores each
// once and fans it out → its senders claim, sign and POST) to a receiver on
// loopback, against the same signed POSTs sent straight to that receiver
// with undici at the same concurrency, measured in the same run. The ratio
// is what durability (PostgreSQL rows per event and attempt, Kafka, the
// claim/lease cycle) costs against the HTTP work alone. Bounded in events
// and time; stops by itself.
const { createHmac, randomBytes } = require('node:crypto');
const http = require('node:http');
const { performance } = require('node:perf_hooks');
const { setTimeout: sleep } = require('node:timers/promises');
const { Pool } = require('pg');
const { Kafka, logLevel } = require('kafkajs');
const { Agent, request } = require('undici');
const { KeyAdmin, KeyRepository } = require('@partner-api/gateway');
const { loadEnv, table, record } = require('./lib');

const EVENTS = Number(process.env.BENCH_EVENTS ?? 3000);
// The webhooks service sends up to WEBHOOK_CONCURRENCY (16) at once per process; the baseline uses as many.
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const DEADLINE_MS = 120_000;

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

const eventBody = (organisationId, sentAt) =>
  JSON.stringify({
    id: `evt_bench_${randomBytes(12).toString('hex')}`,
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
  const arrivals = [...receiver.arrived.values()];
  const latencies = arrivals.map((entry) => entry.at - entry.sentAt).sort((a, b) => a - b);
  const lastAt = Math.max(...arrivals.map((entry) => entry.at));
  const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return { rps: arrivals.length / ((lastAt - startedAt) / 1000), p50: at(0.5), p99: at(0.99), total: arrivals.length, bad: expected - arrivals.length };
}

async function waitForArrivals(receiver, expected) {
  const deadline = Date.now() + DEADLINE_MS;
  while (receiver.arrived.size < expected && Date.now() < deadline) await sleep(20);
}

/** The baseline: the same signed POSTs straight from here, CONCURRENCY at a time. */
async function directPosts(receiver, organisationId, secret) {
  const agent = new Agent({ connections: CONCURRENCY });
  const startedAt = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < EVENTS) {
        next += 1;
        const body = eventBody(organisationId, performance.now());
        const t = Math.floor(Date.now() / 1000);
        const signature = `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;
        const response = await request(receiver.url, { method: 'POST', dispatcher: agent, body, headers: { 'content-type': 'application/json', 'service-signature': signature } });
        await response.body.dump();
      }
    }),
  );
  await agent.close();
  return summarise(receiver, startedAt, EVENTS);
}

/** The pipeline: events produced to the topic as the outbox relays do, delivered by the stack's webhooks service. */
async function throughStack(receiver, organisationId) {
  const producer = new Kafka({ clientId: 'bench-webhooks', brokers: process.env.KAFKA_BROKERS.split(','), logLevel: logLevel.NOTHING }).producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  const startedAt = performance.now();
  for (let sent = 0; sent < EVENTS; sent += 500) {
    const sentAt = performance.now();
    const messages = Array.from({ length: Math.min(500, EVENTS - sent) }, (_, index) => ({ key: `ticket:${sent + index}`, value: eventBody(organisationId, sentAt) }));
    await producer.send({ topic: process.env.KAFKA_TOPIC ?? 'partner.events.v1', acks: -1, messages });
  }
  await producer.disconnect();
  await waitForArrivals(receiver, EVENTS);
  return summarise(receiver, startedAt, EVENTS);
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
  const organisation = await admin.createOrganisation('Webhook benchmark', `bench-webhooks-${randomBytes(4).toString('hex')}`);
  const { secret: key } = await admin.issueKey({ organisationId: organisation.id, name: 'benchmark', mode: 'live', scopes: ['webhooks:manage'], rateLimit: 10_000_000 });
  await pool.end();

  const baselineReceiver = await startReceiver();
  const stackReceiver = await startReceiver();
  const endpoint = await api('/webhook_endpoints', key, { method: 'POST', body: { url: stackReceiver.url, event_types: ['ticket.issued'] } });
  try {
    const rows = [
      { name: `signed POSTs straight to the receiver (undici, ${CONCURRENCY} at a time)`, ...(await directPosts(baselineReceiver, organisation.id, endpoint.secret)) },
      { name: 'events on Kafka → webhooks service (store, fan out, claim, sign, POST)', ...(await throughStack(stackReceiver, organisation.id)) },
    ];
    const markdown = `${EVENTS} events, one endpoint, receiver on loopback answering 200 at once; latency from produce (or send) to arrival.\n\n${table(rows, rows[0].name)}`;
    console.log(markdown);
    record('webhooks', markdown);
    if (rows[1].bad > 0) throw new Error(`${rows[1].bad} events were not delivered within ${DEADLINE_MS / 1000} s`);
  } finally {
    // Nothing more may be sent to a receiver that is going away.
    await api(`/webhook_endpoints/${endpoint.id}`, key, { method: 'DELETE' });
    baselineReceiver.close();
    stackReceiver.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
