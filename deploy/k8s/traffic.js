#!/usr/bin/env node
// Partner traffic for deploy/k8s/upgrade.sh, open loop through the gateway's
// Service: about RATE checkout sessions a second, each with its own
// Idempotency-Key, beside catalog reads and check-ins of issued tickets
// (a tenth of the rate each), until the file STOP exists (then the
// requests in flight finish). One keep-alive pool, as a partner's client
// has, so connections to a pod that goes away are in use when it does.
//
// A failure is any 5xx, any other unexpected status, a reset or a timeout.
// A 429 with Retry-After is waited out and the same request (the same
// Idempotency-Key) sent again, as the spec asks of clients; it is not a
// failure. Prints one JSON line: counts, failures by kind, and the ids of
// the sessions created (for the hold-leak check).
//   node traffic.js BASE_URL KEY EVENT TICKET_TYPE_ID TICKET_IDS STOP [RATE]
'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- a plain Node script, CommonJS like e2e/bench */
/* global fetch, AbortSignal */
const crypto = require('node:crypto');
const fs = require('node:fs');
const { setInterval, clearInterval, setTimeout } = require('node:timers');

const [base, key, event, ticketTypeId, ticketIdList, stopFile, rateArg] = process.argv.slice(2);
if (!stopFile) {
  console.error('usage: traffic.js BASE_URL KEY EVENT TICKET_TYPE_ID TICKET_IDS STOP [RATE]');
  process.exit(2);
}
const RATE = Number(rateArg ?? 100);
const TIMEOUT_MS = 15_000;
const MAX_IN_FLIGHT = 400;
const ticketIds = ticketIdList.split(',').map(Number);
const run = crypto.randomBytes(6).toString('hex');

const counts = { checkouts: 0, reads: 0, check_ins: 0, retried_429: 0 };
const failures = {};
const sessions = [];
let inFlight = 0;
let skipped = 0;

function fail(kind, detail) {
  failures[kind] = (failures[kind] ?? 0) + 1;
  if (failures[kind] <= 3) console.error(`traffic: ${kind}: ${detail}`);
}

/** Sends one request until it has an answer other than a 429 with Retry-After; returns it (or throws). */
async function send(method, path, body, headers = {}) {
  for (;;) {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
      body: body ? JSON.stringify(body) : undefined,
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    const text = await response.text();
    const retryAfter = response.headers.get('retry-after');
    if (response.status === 429 && retryAfter !== null) {
      counts.retried_429 += 1;
      await new Promise((resolve) => setTimeout(resolve, Math.max(Number(retryAfter), 0.05) * 1000));
      continue;
    }
    return { status: response.status, text };
  }
}

async function one(kind, expected, method, path, body, headers) {
  inFlight += 1;
  try {
    const answer = await send(method, path, body, headers);
    counts[kind] += 1;
    if (answer.status !== expected) fail(`${kind} ${answer.status}`, answer.text.slice(0, 300));
    else if (kind === 'checkouts') sessions.push(JSON.parse(answer.text).id);
  } catch (error) {
    counts[kind] += 1;
    const cause = error.cause?.code ?? error.cause?.message ?? error.name;
    fail(`${kind} ${cause}`, String(error.cause ?? error));
  } finally {
    inFlight -= 1;
  }
}

let sequence = 0;
function tick() {
  if (inFlight >= MAX_IN_FLIGHT) {
    skipped += 1;
    return;
  }
  sequence += 1;
  void one('checkouts', 201, 'POST', '/checkout_sessions', { event_id: event, items: [{ ticket_type_id: Number(ticketTypeId), quantity: 1 }] }, {
    'idempotency-key': `upgrade-${run}-${sequence}`,
  });
  if (sequence % 10 === 0) void one('reads', 200, 'GET', `/events?limit=5`);
  if (sequence % 10 === 5) void one('check_ins', 200, 'POST', `/events/${event}/check_ins`, { ticket_id: ticketIds[sequence % ticketIds.length] });
}

const started = Date.now();
const timer = setInterval(() => {
  // Catch up after a late timer, so the rate holds on a busy machine.
  const due = Math.floor(((Date.now() - started) / 1000) * RATE) - sequence - skipped;
  for (let i = 0; i < due; i += 1) tick();
  if (fs.existsSync(stopFile)) {
    clearInterval(timer);
    const waitForInFlight = setInterval(() => {
      if (inFlight > 0) return;
      clearInterval(waitForInFlight);
      const seconds = (Date.now() - started) / 1000;
      const requests = counts.checkouts + counts.reads + counts.check_ins;
      const failed = Object.values(failures).reduce((sum, n) => sum + n, 0);
      console.log(JSON.stringify({ seconds: Math.round(seconds), requests, failed, skipped, ...counts, failures, sessions }));
    }, 50);
  }
}, 20);
