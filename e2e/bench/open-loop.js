// Open-loop load: requests sent at a fixed rate whatever the answers, as
// buyers arrive in an on-sale (a closed loop, where each client waits for its
// answer before sending again, can never offer more than the system serves).
// The generator is vegeta, a Go program: a Node client costs too much CPU to
// send tens of thousands of requests a second on the cores the stack runs on.
// Built once per machine with `go install` (deploy/local/lib.sh's go_tool).
const { execFileSync, spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const readline = require('node:readline');
const { percentiles } = require('./lib');

const ROOT = path.join(__dirname, '..', '..');
const VEGETA = 'github.com/tsenart/vegeta/v12@v12.13.0';

/** The vegeta binary, built on first use (minutes), then found at once. */
function vegetaBinary() {
  return execFileSync('bash', ['-c', '. deploy/local/lib.sh && go_tool vegeta "$1"', 'vegeta', VEGETA], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' }).trim();
}

/**
 * A targets file in vegeta's JSON format: `count` requests when each needs
 * a header of its own (`eachHeaders(i)`, e.g. a fresh Idempotency-Key),
 * else one that vegeta sends over and over.
 */
function writeTargets(file, { method, url, headers, body, count = 1, eachHeaders }) {
  const encodedBody = Buffer.from(body).toString('base64');
  const line = (index) => {
    const header = Object.fromEntries(Object.entries({ ...headers, ...eachHeaders?.(index) }).map(([name, value]) => [name, [value]]));
    return JSON.stringify({ method, url, header, body: encodedBody });
  };
  const out = fs.openSync(file, 'w');
  try {
    const lines = eachHeaders ? count : 1;
    for (let index = 0; index < lines; index += 1) fs.writeSync(out, `${line(index)}\n`);
  } finally {
    fs.closeSync(out);
  }
}

/**
 * Starts `vegeta attack`: `rate` requests a second for `seconds`, each
 * given up after `timeoutSeconds`; results (one per request, response
 * bodies and headers included) go to `output`. Resolves `done` when vegeta
 * has every answer or timeout.
 */
function attack({ binary, targets, rate, seconds, timeoutSeconds, output, name }) {
  const args = ['attack', '-format=json', `-targets=${targets}`, `-rate=${Math.round(rate)}/1s`, `-duration=${seconds}s`, `-timeout=${timeoutSeconds}s`, `-output=${output}`, `-name=${name}`];
  const child = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const done = new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`vegeta attack ${name} exited ${code}: ${stderr.trim()}`))));
  });
  return { pid: child.pid, done };
}

/**
 * Connections the kernel has turned away at a full accept queue since boot
 * (TcpExt ListenDrops; undefined off Linux): each such connection's SYN is
 * resent 1, 3 and 7 s later, which shows up as seconds of latency that no
 * process measured.
 */
function listenDrops() {
  try {
    const [names, values] = fs.readFileSync('/proc/net/netstat', 'utf8').split('\n').filter((line) => line.startsWith('TcpExt:'));
    const index = names.split(' ').indexOf('ListenDrops');
    return index < 0 ? undefined : Number(values.split(' ')[index]);
  } catch {
    return undefined;
  }
}

/** The last part of a Go client error, without the request line: "connection reset by peer", "EOF". */
const errorCause = (error) => error.split(': ').at(-1);

/** Client timeouts as Go's http client words them. */
const isTimeout = (error) => /Client\.Timeout|deadline exceeded|i\/o timeout/i.test(error);

/**
 * One vegeta result (a line of `vegeta encode --to json`) reduced to what
 * the figures need: when it was sent, how long it took, its status (0 when
 * no answer came), the envelope's error code, the session id of a 201, and
 * whether it carried Retry-After.
 */
function parseResult(line) {
  const raw = JSON.parse(line);
  const result = { sentAt: Date.parse(raw.timestamp), latencyMs: raw.latency / 1e6, status: raw.code, error: raw.error || undefined };
  if (raw.code === 0) {
    result.outcome = isTimeout(raw.error) ? 'timeout' : `no answer: ${errorCause(raw.error)}`;
    return result;
  }
  const body = raw.body ? Buffer.from(raw.body, 'base64').toString('utf8') : '';
  let parsed;
  try {
    parsed = JSON.parse(body);
  } catch {
    parsed = undefined;
  }
  if (raw.code === 201) result.id = parsed?.id;
  result.code = parsed?.error?.code;
  result.outcome = result.code ? `${raw.code} ${result.code}` : String(raw.code);
  result.retryAfter = Object.keys(raw.headers ?? {}).some((name) => name.toLowerCase() === 'retry-after');
  return result;
}

/** Every result of a vegeta results file (any of its encodings), parsed one line at a time. */
async function readResults(binary, file) {
  const child = spawn(binary, ['encode', '--to', 'json', file], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise((resolve, reject) => child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`vegeta encode exited ${code}`)))));
  const results = [];
  for await (const line of readline.createInterface({ input: child.stdout, crlfDelay: Infinity })) if (line) results.push(parseResult(line));
  await exited;
  return results;
}

const sortedLatencies = (results) => results.map((result) => result.latencyMs).sort((a, b) => a - b);

/**
 * The figures of one open-loop phase of `seconds` offered at `rate`: the
 * rate the generator kept (requests over the span of their send times),
 * 201s per second, and those answered within `fastMs` ("fast"), latency
 * percentiles of the 201s, of every other answer and of the 429s alone,
 * answers by status and error code, timeouts, 5xx, the session ids the
 * buyers received.
 */
function phaseFigures(results, { rate, seconds, fastMs = 1000 }) {
  const sentAt = results.map((result) => result.sentAt).sort((a, b) => a - b);
  const span = (sentAt.at(-1) - sentAt[0]) / 1000;
  const created = results.filter((result) => result.status === 201);
  const others = results.filter((result) => result.status !== 0 && result.status !== 201);
  const rejected = results.filter((result) => result.status === 429);
  const outcomes = {};
  for (const result of results) outcomes[result.outcome] = (outcomes[result.outcome] ?? 0) + 1;
  return {
    offered: rate,
    sent: results.length,
    achieved: results.length > 1 ? (results.length - 1) / span : 0,
    createdPerSecond: created.length / seconds,
    fastPerSecond: created.filter((result) => result.latencyMs <= fastMs).length / seconds,
    created: percentiles(sortedLatencies(created)),
    others: { count: others.length, ...percentiles(sortedLatencies(others)) },
    rejected: { count: rejected.length, withRetryAfter: rejected.filter((result) => result.retryAfter).length, ...percentiles(sortedLatencies(rejected)) },
    outcomes,
    timeouts: outcomes.timeout ?? 0,
    serverErrors: results.filter((result) => result.status >= 500).length,
    noAnswer: results.filter((result) => result.status === 0 && result.outcome !== 'timeout').length,
    ids: created.map((result) => result.id).filter(Boolean),
  };
}

/**
 * How long after `from` (ms) the latency was back under `underMs`, from a
 * light stream of probe requests: their send times cut into windows of
 * `windowMs`; the answer is the start of the first window from which on
 * every window's p99 is under the bar (a request with no answer or an
 * answer other than `expect` counts as over it). Seconds, or null when the
 * last window is still over (or no probe was sent after `from`).
 */
function recoverySeconds(probes, { from, underMs = 150, windowMs = 500, expect = 201 }) {
  const windows = new Map();
  for (const probe of probes) {
    if (probe.sentAt < from) continue;
    const index = Math.floor((probe.sentAt - from) / windowMs);
    if (!windows.has(index)) windows.set(index, []);
    windows.get(index).push(probe.status === expect ? probe.latencyMs : Infinity);
  }
  if (windows.size === 0) return null;
  const last = Math.max(...windows.keys());
  let recoveredAt = null;
  for (let index = last; index >= 0; index -= 1) {
    const latencies = windows.get(index);
    if (latencies && percentiles(latencies.sort((a, b) => a - b)).p99 >= underMs) break;
    recoveredAt = index;
  }
  return recoveredAt === null ? null : (recoveredAt * windowMs) / 1000;
}

/** When the last of `results` was sent (ms); a loop, as a spread of a phase's hundreds of thousands of results overflows the stack. */
const lastSentAt = (results) => results.reduce((latest, result) => Math.max(latest, result.sentAt), 0);

/** The p99 of the `expect` answers among the requests of the last `lastMs` of a stream, and how many others it had. */
function tailOf(results, { lastMs, expect = 201 }) {
  const from = lastSentAt(results) - lastMs;
  const last = results.filter((result) => result.sentAt >= from);
  return {
    p99: percentiles(sortedLatencies(last.filter((result) => result.status === expect))).p99,
    failed: last.filter((result) => result.status !== expect).length,
  };
}

/** Sessions in the database that no buyer received: ids opened during a phase that are not among the 201s' ids. */
function ghostCount(openedIds, receivedIds) {
  const received = new Set(receivedIds);
  return openedIds.filter((id) => !received.has(id)).length;
}

module.exports = { VEGETA, listenDrops, vegetaBinary, writeTargets, attack, readResults, parseResult, phaseFigures, lastSentAt, tailOf, recoverySeconds, ghostCount };
