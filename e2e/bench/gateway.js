// make bench-gateway: GET / through the full gateway (browser guard, key
// lookup, revocation/expiry/allowlist checks, Redis rate limit, headers,
// request log, telemetry) against a bare node:http server answering the same
// bytes, measured in the same run with the same load. The ratio is the figure.
const { spawn } = require('node:child_process');
const path = require('node:path');
const { Pool } = require('pg');
const { KeyAdmin, KeyRepository } = require('@partner-api/gateway');
const { loadEnv, httpLoad, table, record } = require('./lib');

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const BARE_PORT = Number(process.env.BENCH_BARE_PORT ?? 4090);
// Another gateway than the stack's (a profiled build on its own port); such runs are not recorded.
const GATEWAY_URL = process.env.BENCH_GATEWAY_URL;

async function startBare(sample) {
  const child = spawn(process.execPath, [path.join(__dirname, 'bare-server.js'), JSON.stringify(sample)], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise((resolve, reject) => {
    child.stdout.once('data', resolve);
    child.once('exit', () => reject(new Error('bare server exited')));
  });
  return child;
}

async function main() {
  loadEnv();
  const gatewayUrl = `${GATEWAY_URL ?? process.env.BASE_URL}/`;
  const pool = new Pool({ connectionString: process.env.DATABASE_URL, options: '-c search_path=gateway', max: 1 });
  const { secret } = await new KeyAdmin(new KeyRepository(pool)).issueKey({
    organisationId: Number(process.env.DEMO_ORGANISATION_ID), name: 'benchmark', mode: 'live', scopes: ['events:read'], rateLimit: 10_000_000,
  });
  await pool.end();
  const headers = { authorization: `Bearer ${secret}` };

  const sampleResponse = await fetch(gatewayUrl, { headers });
  const sample = {
    port: BARE_PORT,
    body: await sampleResponse.text(),
    headers: Object.fromEntries([...sampleResponse.headers].filter(([name]) => !['date', 'connection', 'keep-alive', 'content-length'].includes(name))),
  };
  const bare = await startBare(sample);
  try {
    const bareUrl = `http://127.0.0.1:${BARE_PORT}/`;
    await httpLoad({ url: bareUrl, headers, connections: 4, seconds: 1 });
    await httpLoad({ url: gatewayUrl, headers, connections: 4, seconds: 1 });
    const rows = [
      { name: 'bare node:http, same bytes', ...(await httpLoad({ url: bareUrl, headers, connections: CONNECTIONS, seconds: SECONDS })) },
      { name: 'GET / through the gateway', ...(await httpLoad({ url: gatewayUrl, headers, connections: CONNECTIONS, seconds: SECONDS })) },
    ];
    const markdown = `${CONNECTIONS} connections, ${SECONDS} s each, loopback; target: the gateway keeps at least 40% of the bare server's throughput.\n\n${table(rows, rows[0].name)}`;
    console.log(markdown);
    if (!GATEWAY_URL) record('gateway', markdown);
    if (rows[1].bad > 0) throw new Error(`${rows[1].bad} gateway requests failed`);
  } finally {
    bare.kill();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
