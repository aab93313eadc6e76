// make bench-catalog: GET /events?limit=25 through the whole stack (gateway:
// auth, rate limit, validation; gRPC; inventory: query, hydration, Redis
// availability) against the same page query sent straight to PostgreSQL,
// in the same run, with the same concurrency.
const { Pool } = require('pg');
const { KeyAdmin, KeyRepository } = require('@partner-api/gateway');
const { redisFromEnv } = require('@partner-api/shared');
const { CatalogRepository } = require('@partner-api/inventory/dist/storage/catalog-repository');
const { availabilityKey } = require('@partner-api/inventory/dist/storage/stock-keys');
const { clearInterval, setInterval, setTimeout } = require('node:timers');
const { cpuByProcess, freePort, loadEnv, httpLoad, loopLoad, mergedLatency, table, record, startService } = require('./lib');

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);

async function main() {
  loadEnv();
  const organisationId = Number(process.env.DEMO_ORGANISATION_ID);
  const gatewayPool = new Pool({ connectionString: process.env.DATABASE_URL, options: '-c search_path=gateway', max: 1 });
  // A key of its own, so the 120-a-minute default does not cap the run.
  const { secret } = await new KeyAdmin(new KeyRepository(gatewayPool)).issueKey({
    organisationId, name: 'benchmark', mode: 'live', scopes: ['events:read'], rateLimit: 10_000_000,
  });
  await gatewayPool.end();

  const inventoryPool = new Pool({ connectionString: process.env.DATABASE_URL, options: '-c search_path=inventory', max: CONNECTIONS });
  const repository = new CatalogRepository(inventoryPool);
  const query = { organisationId, status: 'all', time: 'all', terms: undefined, updatedSince: undefined, limit: 25, after: undefined };

  const rows = [];
  // Warm both paths before measuring.
  await loopLoad({ once: () => repository.listEvents({ ...query, now: new Date() }), workers: 4, seconds: 1 });
  await httpLoad({ url: `${process.env.BASE_URL}/events?limit=25&status=all&time=all`, headers: { authorization: `Bearer ${secret}` }, connections: 4, seconds: 1 });

  const directCpu = cpuByProcess();
  const direct = await loopLoad({ once: () => repository.listEvents({ ...query, now: new Date() }), workers: CONNECTIONS, seconds: SECONDS });
  const directSpent = directCpu.spent();
  rows.push({ name: 'PostgreSQL: the page query alone (pg, same process as the load)', ...direct });
  const stackCpu = cpuByProcess();
  const gateway = await httpLoad({
    url: `${process.env.BASE_URL}/events?limit=25&status=all&time=all`,
    headers: { authorization: `Bearer ${secret}` },
    connections: CONNECTIONS,
    seconds: SECONDS,
  });
  const stackSpent = stackCpu.spent();
  rows.push({ name: 'GET /events?limit=25 through gateway → gRPC → inventory', ...gateway });
  const twoGateways = await throughTwoGateways(secret);
  rows.push({ name: 'the same through two gateway processes (two replicas), half the clients on each', ...twoGateways });
  const moving = await whileStockMoves(inventoryPool, secret);
  rows.push({ name: `the same through one gateway while one event of the page sells (its counter moved ${moving.movesPerSecond} times a second)`, ...moving });
  await inventoryPool.end();

  const perRequest = (spent, result) => (name) => ((spent[name] * 1000) / Math.max(1, result.total)).toFixed(3);
  const cpu = [
    '',
    'CPU ms per request by process (CPU seconds of each process during the row, per request answered):',
    '',
    '| Process | Page query alone | Through the stack |',
    '|---|---:|---:|',
    ...Object.keys(stackSpent)
      .filter((name) => stackSpent[name] + directSpent[name] > 0)
      .map((name) => `| ${name === 'load generator (this process)' ? 'load generator and page query client (this process)' : name} | ${perRequest(directSpent, direct)(name)} | ${perRequest(stackSpent, gateway)(name)} |`),
  ].join('\n');
  const markdown = `${CONNECTIONS} concurrent clients, ${SECONDS} s each, loopback.\n\n${table(rows, rows[0].name)}\n${cpu}`;
  console.log(markdown);
  record('catalog', markdown);
  const failed = gateway.bad + twoGateways.bad + moving.bad;
  if (failed > 0) throw new Error(`${failed} gateway requests failed`);
}

/**
 * The stack's row again with a second gateway process beside the stack's,
 * each taking half the clients: the shape of a deployment, where the chart
 * runs several gateway pods (two by default) and one process is one core.
 */
async function throughTwoGateways(secret) {
  const port = await freePort();
  // Logging as the stack's gateway does (startService's default is warnings only): the same work per request.
  const second = await startService('gateway', 'catalog-second', { HTTP_PORT: String(port), LOG_LEVEL: process.env.LOG_LEVEL ?? 'info' }, { telemetry: true });
  try {
    const urls = [process.env.BASE_URL, `http://127.0.0.1:${port}`].map((base) => `${base}/events?limit=25&status=all&time=all`);
    const headers = { authorization: `Bearer ${secret}` };
    await httpLoad({ url: urls[1], headers, connections: 4, seconds: 1 });
    const halves = await Promise.all(urls.map((url) => httpLoad({ url, headers, connections: CONNECTIONS / 2, seconds: SECONDS })));
    const sum = (field) => halves.reduce((total, half) => total + half[field], 0);
    // Percentiles over both halves' requests together.
    return { rps: sum('rps'), ...mergedLatency(halves), total: sum('total'), bad: sum('bad') };
  } finally {
    await second.stop();
  }
}

/**
 * The stack's row while one event of the page sells: its pool counter moves
 * every millisecond or so (one down, one back up, as holds and releases do),
 * so most polls find the page's JSON changed and get its bytes again instead
 * of "unchanged" (D355). The counter ends where it started.
 */
async function whileStockMoves(inventoryPool, secret) {
  const url = `${process.env.BASE_URL}/events?limit=25&status=all&time=all`;
  const headers = { authorization: `Bearer ${secret}` };
  const page = await (await fetch(url, { headers })).json();
  const capped = page.data.find((event) => event.ticketing && event.ticketing.tickets_remaining !== null);
  if (!capped) throw new Error('no event on the page has a capped pool to move');
  const { rows } = await inventoryPool.query('SELECT id FROM pools WHERE event_id = $1 AND capacity IS NOT NULL ORDER BY id LIMIT 1', [capped.id]);
  const key = availabilityKey(String(capped.id), String(rows[0].id));
  const redis = redisFromEnv(process.env);
  let moves = 0;
  let busy = false;
  const mover = setInterval(() => {
    if (busy) return;
    busy = true;
    redis.incrby(key, moves % 2 === 0 ? -1 : 1).then(() => { moves += 1; busy = false; }, () => { busy = false; });
  }, 1);
  try {
    const result = await httpLoad({ url, headers, connections: CONNECTIONS, seconds: SECONDS });
    return { ...result, movesPerSecond: Math.round(moves / SECONDS) };
  } finally {
    clearInterval(mover);
    while (busy) await new Promise((resolve) => setTimeout(resolve, 5));
    if (moves % 2 === 1) await redis.incrby(key, 1);
    await redis.quit();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
