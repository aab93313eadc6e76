#!/usr/bin/env node
// Hold leaks after deploy/k8s/upgrade.sh: prints how many of an
// organisation's checkout sessions still hold tickets (open or pending)
// that are not in RECEIVED (the ids the partner's client was answered
// with, one a line). A session made for a request whose answer was lost
// would hold its tickets for nobody until it expired.
//   DATABASE_URL=... node held-sessions.js ORGANISATION_ID RECEIVED
'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- a plain Node script, CommonJS like e2e/bench */
const fs = require('node:fs');
const { Client } = require('pg');

async function main() {
  const [organisationId, receivedFile] = process.argv.slice(2);
  const received = new Set(fs.readFileSync(receivedFile, 'utf8').split('\n').filter(Boolean));
  const client = new Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  try {
    const { rows } = await client.query("SELECT id FROM orders.checkout_sessions WHERE organisation_id = $1 AND status IN ('open', 'pending')", [organisationId]);
    const leaked = rows.filter((row) => !received.has(row.id));
    for (const row of leaked.slice(0, 5)) console.error(`held for nobody: checkout session ${row.id}`);
    console.log(leaked.length);
  } finally {
    await client.end();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
