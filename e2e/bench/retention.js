// make bench-retention: what one retention pass costs PostgreSQL on large
// tables, with the BRIN indexes of D365 and without them, on the same rows
// in the same run: the outbox prune every service with an outbox runs
// (pruneOutbox, services/shared/dist) and the webhooks service's event and
// delivery prune (EventFeedRepository.prune, services/webhooks/dist). Each
// runs every minute in every process, and almost always finds nothing old
// enough, which is the case measured first; then one pass deleting a batch.
// Runs in a schema of its own (`bench_retention`, migrated here, dropped at
// the end); bounded in rows and passes.
const { performance } = require('node:perf_hooks');
const { Pool } = require('pg');
const { pruneOutbox } = require('../../services/shared/dist/outbox');
const { EventFeedRepository } = require('../../services/webhooks/dist/storage/event-feed-repository');
const { fmt, loadEnv, migratedScratchSchema, record } = require('./lib');

const SCHEMA = 'bench_retention';
const ROWS = Number(process.env.BENCH_ROWS ?? 500_000);
const PASSES = Number(process.env.BENCH_PASSES ?? 10);
const BATCH = 1_000;
const DAY = 86_400_000;

/** ROWS published outbox rows and ROWS finished attempts, written in order over the `days` days before now. */
async function fill(pool, days) {
  await pool.query(
    `INSERT INTO outbox (event_id, event_type, partition_key, payload, created_at, published_at)
     SELECT 'evt_retention_' || i, 'ticket.issued', 'ticket:' || i, '{"object":"event"}', t, t
       FROM generate_series(1, $1) i, LATERAL (SELECT now() - $2 * interval '1 day' * (1 - i::float8 / $1)) AS at(t)`,
    [ROWS, days],
  );
  const { rows } = await pool.query("INSERT INTO endpoints (organisation_id, url, event_types, mode, secret) VALUES (1, 'https://receiver.example/hooks', '{*}', 'live', 'whsec_bench') RETURNING id");
  await pool.query(
    `INSERT INTO deliveries (endpoint_id, event_id, event_type, attempt, status, due_at, sent_at, response_status, created_at)
     SELECT $3, 'evt_retention_' || i, 'ticket.issued', 1, 'succeeded', t, t, 200, t
       FROM generate_series(1, $1) i, LATERAL (SELECT now() - $2 * interval '1 day' * (1 - i::float8 / $1)) AS at(t)`,
    [ROWS, days, rows[0].id],
  );
  await pool.query('VACUUM ANALYZE outbox');
  await pool.query('VACUUM ANALYZE deliveries');
}

/** Mean ms of PASSES calls of `pass`. */
async function timed(pass) {
  await pass(); // plan cached, pages warm
  const startedAt = performance.now();
  for (let i = 0; i < PASSES; i += 1) await pass();
  return (performance.now() - startedAt) / PASSES;
}

async function main() {
  loadEnv();
  const pool = new Pool({ connectionString: process.env.DATABASE_URL, options: `-c search_path=${SCHEMA}`, max: 1 });
  const feed = new EventFeedRepository(pool);
  const passes = {
    outbox: (before) => pruneOutbox(pool, before, BATCH),
    webhooks: (before) => feed.prune(before, BATCH),
  };
  const measured = {};
  try {
    await migratedScratchSchema(pool, SCHEMA, ['services/shared/migrations/outbox', 'services/webhooks/migrations']);
    // A week and a half of rows against a week's outbox retention and 30 days of the webhooks' (the last 3 days' worth due).
    await fill(pool, 33);
    const cutoffs = { outbox: new Date(Date.now() - 7 * DAY), webhooks: new Date(Date.now() - 30 * DAY) };
    const nothingOld = new Date(Date.now() - 40 * DAY);
    for (const withBrin of [true, false]) {
      if (!withBrin) {
        await pool.query('DROP INDEX outbox_created_brin, deliveries_created_brin');
        await pool.query('ANALYZE outbox');
        await pool.query('ANALYZE deliveries');
      }
      for (const [name, pass] of Object.entries(passes)) {
        const idle = await timed(() => pass(nothingOld));
        const startedAt = performance.now();
        const deleted = await pass(cutoffs[name]);
        const batch = performance.now() - startedAt;
        if (name === 'outbox' && deleted !== BATCH) throw new Error(`the outbox pass deleted ${deleted} rows, not ${BATCH}`);
        measured[`${name} ${withBrin}`] = { idle, batch };
        console.log(`${name}, ${withBrin ? 'BRIN' : 'no index'}: nothing old ${fmt(idle, 2)} ms a pass, a batch ${fmt(batch, 1)} ms`);
      }
    }
  } finally {
    await pool.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
    await pool.end();
  }
  const row = (name, label) => {
    const [now, before] = [measured[`${name} true`], measured[`${name} false`]];
    return `| ${label} | ${fmt(before.idle, 2)} | ${fmt(now.idle, 2)} | ${fmt(before.idle / now.idle, 0)} | ${fmt(before.batch, 1)} | ${fmt(now.batch, 1)} |`;
  };
  const markdown = [
    `${ROWS.toLocaleString('en')} published outbox rows and as many finished delivery attempts, written over 33 days. A pass that finds nothing old enough (mean of ${PASSES}; what almost every minute's pass does), and one pass deleting a batch of up to ${BATCH.toLocaleString('en')}. Baseline: the same tables without the BRIN indexes.`,
    '',
    '| Pass | Nothing old: without index ms | with BRIN ms | without / with | A batch: without ms | with BRIN ms |',
    '|---|---:|---:|---:|---:|---:|',
    row('outbox', 'outbox (every service with one)'),
    row('webhooks', 'webhooks events, attempts, replays, notices'),
  ].join('\n');
  console.log(markdown);
  record('retention', markdown);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
