// The open-loop benchmark's parsing and figures, checked without the stack
// (`node --test e2e/bench/open-loop.test.js`; make bench-overload runs it
// first). The last test sends real vegeta requests to a server of its own.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { test } = require('node:test');
const { attack, ghostCount, lastSentAt, parseResult, phaseFigures, readResults, recoverySeconds, tailOf, vegetaBinary, writeTargets } = require('./open-loop');

const line = (fields) =>
  JSON.stringify({ attack: 'x', seq: 0, code: 0, timestamp: '2026-01-01T00:00:00.000000000Z', latency: 0, error: '', body: null, headers: null, ...fields });
const base64 = (value) => Buffer.from(JSON.stringify(value)).toString('base64');

test('parseResult reads a 201 session id, an envelope code with Retry-After, a timeout and a connection error', () => {
  const created = parseResult(line({ code: 201, latency: 12_500_000, body: base64({ object: 'checkout_session', id: 'a1' }), headers: { 'Content-Type': ['application/json'] } }));
  assert.deepEqual(created, { sentAt: Date.parse('2026-01-01T00:00:00Z'), latencyMs: 12.5, status: 201, error: undefined, id: 'a1', code: undefined, outcome: '201', retryAfter: false });

  const rejected = parseResult(line({ code: 429, latency: 2e6, body: base64({ error: { type: 'rate_limit_error', code: 'rate_limited', message: 'Too many' } }), headers: { 'Retry-After': ['1'] } }));
  assert.equal(rejected.outcome, '429 rate_limited');
  assert.equal(rejected.retryAfter, true);

  const timeout = parseResult(line({ latency: 10e9, error: 'Post "http://127.0.0.1:4000/checkout_sessions": context deadline exceeded (Client.Timeout exceeded while awaiting headers)' }));
  assert.equal(timeout.outcome, 'timeout');

  const reset = parseResult(line({ error: 'Post "http://127.0.0.1:4000/checkout_sessions": read tcp 127.0.0.1:50000->127.0.0.1:4000: read: connection reset by peer' }));
  assert.equal(reset.outcome, 'no answer: connection reset by peer');

  const notJson = parseResult(line({ code: 502, body: Buffer.from('Bad Gateway').toString('base64') }));
  assert.equal(notJson.outcome, '502');
});

test('phaseFigures: the kept send rate, 201s within the fast bound per second, tails per kind of answer, outcomes and ids', () => {
  const at = (second) => Date.parse('2026-01-01T00:00:00Z') + second * 1000;
  const results = [
    { sentAt: at(0), latencyMs: 20, status: 201, id: 's1', outcome: '201' },
    { sentAt: at(0.5), latencyMs: 1500, status: 201, id: 's2', outcome: '201' },
    { sentAt: at(1), latencyMs: 5, status: 429, code: 'rate_limited', outcome: '429 rate_limited', retryAfter: true },
    { sentAt: at(1.5), latencyMs: 7, status: 429, code: 'rate_limited', outcome: '429 rate_limited', retryAfter: false },
    { sentAt: at(2), latencyMs: 300, status: 500, code: 'api_error', outcome: '500 api_error' },
    { sentAt: at(2.5), latencyMs: 10_000, status: 0, outcome: 'timeout' },
    { sentAt: at(3), latencyMs: 1, status: 0, outcome: 'no answer: EOF' },
  ];
  const figures = phaseFigures(results, { rate: 2, seconds: 2, fastMs: 1000 });
  assert.equal(figures.sent, 7);
  assert.equal(figures.achieved, 2); // 6 intervals over 3 s
  assert.equal(figures.createdPerSecond, 1);
  assert.equal(figures.fastPerSecond, 0.5);
  assert.equal(figures.created.p50, 1500);
  assert.equal(figures.created.p99, 1500);
  assert.equal(figures.others.count, 3);
  assert.equal(figures.others.p99, 300);
  assert.deepEqual([figures.rejected.count, figures.rejected.withRetryAfter, figures.rejected.p99], [2, 1, 7]);
  assert.deepEqual(figures.outcomes, { 201: 2, '429 rate_limited': 2, '500 api_error': 1, timeout: 1, 'no answer: EOF': 1 });
  assert.deepEqual([figures.timeouts, figures.serverErrors, figures.noAnswer], [1, 1, 1]);
  assert.deepEqual(figures.ids, ['s1', 's2']);
});

test('recoverySeconds: the start of the window from which every window is under the bar; failures count as over it', () => {
  const probe = (ms, latencyMs, status = 201) => ({ sentAt: 10_000 + ms, latencyMs, status });
  const probes = [probe(-100, 900), probe(0, 900), probe(600, 200), probe(1100, 40), probe(1200, 400, 0), probe(1600, 40), probe(2100, 30), probe(2600, 20)];
  assert.equal(recoverySeconds(probes, { from: 10_000, underMs: 150, windowMs: 500 }), 1.5);
  assert.equal(recoverySeconds([probe(0, 20), probe(600, 20)], { from: 10_000 }), 0);
  assert.equal(recoverySeconds([probe(0, 20), probe(600, 200)], { from: 10_000 }), null);
  assert.equal(recoverySeconds([], { from: 10_000 }), null);
});

test("a 10x phase's results (hundreds of thousands): the last send time, and the tail of a stream's last seconds", () => {
  const results = Array.from({ length: 400_000 }, (_, index) => ({ sentAt: index, latencyMs: index % 100, status: index % 4 ? 201 : 429 }));
  assert.equal(lastSentAt(results), 399_999);
  const tail = tailOf(results, { lastMs: 1999 });
  assert.equal(tail.failed, 500);
  assert.equal(tail.p99, 99);
});

test('ghostCount: sessions in the database that no 201 carried', () => {
  assert.equal(ghostCount(['a', 'b', 'c', 'd'], ['b', 'd', 'x']), 2);
});

test('vegeta sends the targets file at the rate asked, and its results read back: bodies, codes, per-request keys', async () => {
  const keys = [];
  let served = 0;
  const server = http.createServer((request, response) => {
    keys.push(request.headers['idempotency-key']);
    served += 1;
    if (served % 2) response.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ id: `s${served}` }));
    else response.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' }).end(JSON.stringify({ error: { code: 'rate_limited' } }));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'open-loop-test-'));
  try {
    const binary = vegetaBinary();
    const targets = path.join(dir, 'targets');
    const output = path.join(dir, 'results.bin');
    const url = `http://127.0.0.1:${server.address().port}/checkout_sessions`;
    writeTargets(targets, { method: 'POST', url, headers: { 'Content-Type': 'application/json' }, body: '{}', count: 100, eachHeaders: (index) => ({ 'Idempotency-Key': `k${index}` }) });
    assert.equal(fs.readFileSync(targets, 'utf8').trim().split('\n').length, 100);
    await attack({ binary, targets, rate: 50, seconds: 1, timeoutSeconds: 5, output, name: 'test' }).done;
    const results = await readResults(binary, output);
    assert.equal(results.length, 50);
    assert.equal(new Set(keys).size, 50);
    const figures = phaseFigures(results, { rate: 50, seconds: 1 });
    assert.ok(figures.achieved > 45 && figures.achieved < 55, `sent at ${figures.achieved}/s`);
    assert.deepEqual(figures.outcomes, { 201: 25, '429 rate_limited': 25 });
    assert.equal(figures.rejected.withRetryAfter, 25);
    assert.equal(new Set(figures.ids).size, 25);
  } finally {
    server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("bench-overload's last line: capacity, the multiples past it, the run's totals", () => {
  const { summaryLine } = require('./overload');
  const phase = (multiple, fast, p99, rejected) => ({
    multiple, name: `${multiple}x`, fastPerSecond: fast, created: { p99 }, rejected: { count: rejected ? 10 : 0, p99: rejected }, timeouts: 1, serverErrors: 2, ghosts: 3,
  });
  assert.equal(
    summaryLine(2000, [phase(0.5, 1000, 50, 0), phase(2, 1800, 250, 12), phase(10, 1400, 300, 0)]),
    'overload: capacity 2,000/s; 2x: 1,800/s fast (0.90 of capacity), p99 250 ms, rejected p99 12 ms; 10x: 1,400/s fast (0.70 of capacity), p99 300 ms, rejected p99 n/a; ' +
      'timeouts 3; 5xx 6; ghost holds 9',
  );
});
