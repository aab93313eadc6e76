// The least a durable webhooks pipeline has to do, run by make bench-webhooks
// beside the service (a child process, as the service is a process of its
// own): the same events on Kafka, each stored before it is sent and each
// attempt recorded with its outcome, and nothing else. Per chunk of up to 250
// messages (every partition at once, as the service consumes):
//   1. one statement stores the events and reads, in the same statement, the
//      enabled endpoints subscribed to them (a send must see the endpoint as
//      it is now: a pause or a new secret applies to the next chunk);
//   2. every route is signed and POSTed, up to FLOOR_CONCURRENCY at a time,
//      as the request the service sends (`serviceDeliveryHeaders`, D379);
//   3. one statement records the attempts with their outcomes;
//   4. the chunk's offsets are committed.
// A process that dies between 1 and 4 reads the chunk again and sends it
// again, as at-least-once allows. What it leaves out, against the service:
// no attempt is claimed or leased, none is retried or scheduled, nothing is
// traced, logged or counted, no receiver policy is checked. It writes into
// tables made like the service's (same columns, constraints and indexes) in
// a schema of its own (FLOOR_SCHEMA), so its PostgreSQL work per row is the
// service's.
const { performance } = require('node:perf_hooks');
const { Kafka, logLevel } = require('kafkajs');
const { Pool } = require('pg');
const { Agent, request } = require('undici');
const { serviceDeliveryHeaders } = require('./lib');

const CONCURRENCY = Number(process.env.FLOOR_CONCURRENCY ?? 64);
// As the service consumes (D376).
const CHUNK = 250;
const pool = new Pool({ connectionString: process.env.DATABASE_URL, options: `-c search_path=${process.env.FLOOR_SCHEMA}`, max: 8 });
const agent = new Agent({ connections: CONCURRENCY });

/** At most CONCURRENCY POSTs at once across every partition's chunk; a finished send hands its slot to the next waiting. */
let sending = 0;
const waiting = [];
const takeSlot = () => (sending < CONCURRENCY ? ((sending += 1), undefined) : new Promise((resolve) => waiting.push(resolve)));
const giveSlot = () => {
  const next = waiting.shift();
  if (next) next();
  else sending -= 1;
};

async function send(route, body) {
  await takeSlot();
  const startedAt = performance.now();
  try {
    const headers = serviceDeliveryHeaders({ id: route.event_id, type: route.event_type }, body, route.secret);
    const response = await request(route.url, {
      method: 'POST',
      dispatcher: agent,
      body,
      headers,
      headersTimeout: 10_000,
      bodyTimeout: 10_000,
    });
    await response.body.dump();
    return { status: response.statusCode, ms: Math.round(performance.now() - startedAt), error: null };
  } catch (error) {
    return { status: null, ms: Math.round(performance.now() - startedAt), error: String(error.message).slice(0, 200) };
  } finally {
    giveSlot();
  }
}

async function deliver(values) {
  const events = values.map((value) => {
    const event = JSON.parse(value);
    return { id: event.id, organisationId: event.organisation_id, type: event.type, livemode: event.livemode, createdAt: new Date(event.created * 1000), payload: value };
  });
  const { rows: routes } = await pool.query({
    name: 'floor.store-and-route',
    text: `WITH stored AS (
       INSERT INTO events (id, organisation_id, type, livemode, payload, trace_context, created_at)
       SELECT id, organisation_id, type, livemode, payload, '{}'::jsonb, created_at
         FROM unnest($1::text[], $2::bigint[], $3::text[], $4::boolean[], $5::text[], $6::timestamptz[]) AS ev(id, organisation_id, type, livemode, payload, created_at)
       ON CONFLICT (id) DO NOTHING
       RETURNING id, organisation_id, type, livemode)
     SELECT s.id AS event_id, s.type AS event_type, e.id AS endpoint_id, e.url, e.secret
       FROM stored s
       JOIN webhooks.endpoints e ON e.organisation_id = s.organisation_id AND e.mode = 'live' AND e.enabled
                                AND (s.type = ANY (e.event_types) OR '*' = ANY (e.event_types))
      WHERE s.livemode`,
    values: [events.map((e) => e.id), events.map((e) => e.organisationId), events.map((e) => e.type), events.map((e) => e.livemode), events.map((e) => e.payload), events.map((e) => e.createdAt)],
  });
  if (routes.length === 0) return;
  const payloads = new Map(events.map((event) => [event.id, event.payload]));
  const outcomes = await Promise.all(routes.map((route) => send(route, payloads.get(route.event_id))));
  await pool.query({
    name: 'floor.record-attempts',
    text: `INSERT INTO deliveries (endpoint_id, event_id, event_type, attempt, status, due_at, sent_at, response_status, duration_ms, error)
     SELECT endpoint_id, event_id, event_type, 1, CASE WHEN response_status BETWEEN 200 AND 299 THEN 'succeeded' ELSE 'failed' END, now(), now(), response_status, duration_ms, error
       FROM unnest($1::bigint[], $2::text[], $3::text[], $4::int[], $5::int[], $6::text[]) AS a(endpoint_id, event_id, event_type, response_status, duration_ms, error)
     ON CONFLICT (endpoint_id, event_id, attempt) WHERE NOT manual DO NOTHING`,
    values: [
      routes.map((r) => r.endpoint_id),
      routes.map((r) => r.event_id),
      routes.map((r) => r.event_type),
      outcomes.map((o) => o.status),
      outcomes.map((o) => o.ms),
      outcomes.map((o) => o.error),
    ],
  });
}

async function main() {
  const kafka = new Kafka({ clientId: 'bench-webhook-floor', brokers: process.env.KAFKA_BROKERS.split(','), logLevel: logLevel.NOTHING });
  const consumer = kafka.consumer({ groupId: process.env.FLOOR_GROUP_ID });
  await consumer.connect();
  await consumer.subscribe({ topic: process.env.FLOOR_TOPIC, fromBeginning: true });
  consumer.on(consumer.events.GROUP_JOIN, () => process.send?.('ready'));
  await consumer.run({
    partitionsConsumedConcurrently: Number(process.env.FLOOR_PARTITIONS ?? 6),
    eachBatchAutoResolve: false,
    eachBatch: async ({ batch, resolveOffset, heartbeat, isRunning, isStale }) => {
      for (let start = 0; start < batch.messages.length; start += CHUNK) {
        if (!isRunning() || isStale()) return;
        const chunk = batch.messages.slice(start, start + CHUNK);
        await deliver(chunk.filter((message) => message.value).map((message) => message.value.toString('utf8')));
        resolveOffset(chunk[chunk.length - 1].offset);
        await heartbeat();
      }
    },
  });
  const stop = async () => {
    await consumer.disconnect();
    await agent.close();
    await pool.end();
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('disconnect', stop);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
