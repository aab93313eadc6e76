// make bench-webhook-claims: what one claim of the webhooks' delivery
// queue costs PostgreSQL while retries wait for later, through
// DeliveryRepository.claimDue (services/webhooks/dist), against the claim
// as it was before D364 (one partial index over scheduled and sending
// attempts, walked from its start; the migrations keep that index for the
// release before, so "now" runs with all three), on the same rows in the
// same run. Each
// size is measured with nothing due (the claim that ends every drain) and
// with 64 attempts due. Runs in a schema of its own (`bench_webhook_claims`,
// migrated here, dropped at the end); bounded in rows and calls.
const { performance } = require('node:perf_hooks');
const { Pool } = require('pg');
const { DeliveryRepository } = require('../../services/webhooks/dist/storage/delivery-repository');
const { fmt, loadEnv, migratedScratchSchema, record } = require('./lib');

const SCHEMA = 'bench_webhook_claims';
const SIZES = (process.env.BENCH_RETRIES ?? '0,10000,50000').split(',').map(Number);
const IN_FLIGHT = 64;
const CLAIMS = Number(process.env.BENCH_CLAIMS ?? 300);
const LEASE_MS = 30_000;
/** Claims of IN_FLIGHT due attempts measured per size. */
const DUE_CLAIMS = 20;

/** The claim before D364, as the baseline. */
const CLAIM_BEFORE = `WITH due AS (
   SELECT id FROM deliveries
    WHERE (status = 'scheduled' AND due_at <= now()) OR (status = 'sending' AND lease_until < now())
    ORDER BY due_at LIMIT $1 FOR UPDATE SKIP LOCKED)
 UPDATE deliveries d SET status = 'sending', lease_until = now() + $2 * interval '1 millisecond', sent_at = now(), updated_at = now()
   FROM due, endpoints e, events ev WHERE d.id = due.id AND e.id = d.endpoint_id AND ev.id = d.event_id
 RETURNING d.id, ev.payload`;

/** One endpoint; `retries` attempts due between an hour and three days from now; IN_FLIGHT attempts sending under a live lease. */
async function fill(pool, retries) {
  await pool.query('TRUNCATE endpoints, events, deliveries CASCADE');
  const { rows } = await pool.query("INSERT INTO endpoints (organisation_id, url, event_types, mode, secret) VALUES (1, 'https://receiver.example/hooks', '{*}', 'live', 'whsec_bench') RETURNING id");
  const endpointId = rows[0].id;
  const total = retries + IN_FLIGHT;
  await pool.query(
    `INSERT INTO events (id, organisation_id, type, livemode, payload) SELECT 'evt_claims_' || i, 1, 'order.completed', true, '{}' FROM generate_series(1, $1) i`,
    [total + DUE_CLAIMS * IN_FLIGHT],
  );
  await pool.query(
    `INSERT INTO deliveries (endpoint_id, event_id, event_type, attempt, status, due_at, lease_until)
     SELECT $1, 'evt_claims_' || i, 'order.completed', 2,
            CASE WHEN i <= $2 THEN 'scheduled' ELSE 'sending' END,
            CASE WHEN i <= $2 THEN now() + interval '1 hour' + (i % 259200) * interval '1 second' ELSE now() END,
            CASE WHEN i <= $2 THEN NULL ELSE now() + interval '1 hour' END
       FROM generate_series(1, $3) i`,
    [endpointId, retries, total],
  );
  return { endpointId, firstDue: total + 1 };
}

/** IN_FLIGHT more attempts due now, from the event numbered `first`. */
async function addDue(pool, endpointId, first) {
  await pool.query(
    `INSERT INTO deliveries (endpoint_id, event_id, event_type, attempt, status, due_at)
     SELECT $1, 'evt_claims_' || i, 'order.completed', 1, 'scheduled', now() - interval '1 second' FROM generate_series($2::int, $2::int + $3 - 1) i`,
    [endpointId, first, IN_FLIGHT],
  );
}

/** Mean ms per claim over CLAIMS claims finding nothing due, and over DUE_CLAIMS claims each taking IN_FLIGHT attempts just made due. */
async function measure(pool, claim, fillResult) {
  for (let i = 0; i < 20; i += 1) await claim(IN_FLIGHT); // plan cached, pages warm
  const startedAt = performance.now();
  for (let i = 0; i < CLAIMS; i += 1) {
    const taken = await claim(IN_FLIGHT);
    if (taken.length > 0) throw new Error('a claim took an attempt that was not due');
  }
  const empty = (performance.now() - startedAt) / CLAIMS;
  let due = 0;
  for (let round = 0; round < DUE_CLAIMS; round += 1) {
    await addDue(pool, fillResult.endpointId, fillResult.firstDue + round * IN_FLIGHT);
    const dueStartedAt = performance.now();
    const taken = await claim(IN_FLIGHT);
    due += (performance.now() - dueStartedAt) / DUE_CLAIMS;
    if (taken.length !== IN_FLIGHT) throw new Error(`a claim took ${taken.length} of ${IN_FLIGHT} due attempts`);
  }
  return { empty, due };
}

async function main() {
  loadEnv();
  const pool = new Pool({ connectionString: process.env.DATABASE_URL, options: `-c search_path=${SCHEMA}`, max: 1 });
  const rows = [];
  try {
    await migratedScratchSchema(pool, SCHEMA, ['services/webhooks/migrations']);
    const repository = new DeliveryRepository(pool);
    for (const retries of SIZES) {
      // Now: the repository's claim on the migrated indexes.
      let filled = await fill(pool, retries);
      await pool.query('ANALYZE deliveries');
      const now = await measure(pool, (limit) => repository.claimDue(limit, LEASE_MS), filled);
      // Before: the same rows under the index and statement before D364.
      filled = await fill(pool, retries);
      await pool.query('DROP INDEX deliveries_scheduled_idx, deliveries_lease_idx');
      await pool.query('ANALYZE deliveries');
      const before = await measure(pool, async (limit) => (await pool.query(CLAIM_BEFORE, [limit, LEASE_MS])).rows, filled);
      await pool.query("CREATE INDEX deliveries_scheduled_idx ON deliveries (due_at) WHERE status = 'scheduled'");
      await pool.query("CREATE INDEX deliveries_lease_idx ON deliveries (lease_until) WHERE status = 'sending'");
      rows.push({ retries, before, now });
      console.log(`${retries} retries waiting: nothing due ${fmt(before.empty, 3)} → ${fmt(now.empty, 3)} ms a claim; ${IN_FLIGHT} due ${fmt(before.due)} → ${fmt(now.due)} ms`);
    }
  } finally {
    await pool.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
    await pool.end();
  }
  const markdown = [
    `One claim of up to ${IN_FLIGHT} attempts with ${IN_FLIGHT} attempts in flight and the retries shown waiting for later, mean of ${CLAIMS} claims when nothing is due (the claim that ends every drain), and the mean of ${DUE_CLAIMS} claims each taking ${IN_FLIGHT} attempts just made due. Baseline: the claim before D364 on the same rows.`,
    '',
    `| Retries waiting | Nothing due: before ms | now ms | before / now | ${IN_FLIGHT} due: before ms | now ms |`,
    '|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      ({ retries, before, now }) =>
        `| ${retries} | ${fmt(before.empty, 3)} | ${fmt(now.empty, 3)} | ${fmt(before.empty / now.empty, 1)} | ${fmt(before.due)} | ${fmt(now.due)} |`,
    ),
  ].join('\n');
  console.log(markdown);
  record('webhook-claims', markdown);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
