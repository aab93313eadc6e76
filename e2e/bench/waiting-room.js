// make bench-waiting-room: 20,000 visitors arrive open-loop in 10 s at an
// event's sale page behind a waiting room, 5,000 of them before it opens;
// the admission rate is fixed for the run. Measures the queue page's
// latency, the rate visitors are admitted at (the next in line poll as the
// waiting page does), the order (Spearman's rho of the pre-opening
// visitors' places against their arrival; post-opening visitors standing
// behind someone who arrived after their answer), and that forged and
// expired passes are refused. Loopback only; vegeta sends the arrivals.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const readline = require('node:readline');
const { Redis } = require('ioredis');
const { createServiceClient, gen, localGrpcAddress, randomBase62 } = require('@partner-api/shared');
const { WaitingRoomPasses } = require('@partner-api/orders/dist/domain/waiting-room-passes');
const { fmt, loadEnv, loopbackOnly, percentiles, record, sleep } = require('./lib');
const { attack, vegetaBinary, writeTargets } = require('./open-loop');

// The issue's figures; BENCH_VISITORS scales a lighter run (a quarter of them still before the opening).
const VISITORS = Number(process.env.BENCH_VISITORS ?? 20_000);
const BEFORE_OPENING = VISITORS / 4;
const SECONDS = 10;
const ARRIVAL_RATE = VISITORS / SECONDS;
const SET_RATE = Number(process.env.BENCH_ADMISSION_RATE ?? 100);
const MEASURE_SECONDS = 10;
const FORGED = 200;
/** The local stack's development secret: the expired passes are signed as orders signs them. */
const DEVELOPMENT_PASSES = new WaitingRoomPasses(process.env.WAITING_ROOM_PASS_SECRET ?? 'local-development-waiting-room-pass-secret');

/** Each visitor its own address (the stack's hosted pages trust 127.0.0.1's X-Forwarded-For): the per-address pass limit is not what is measured. */
const addressOf = (index) => `10.${(index >> 16) & 255}.${(index >> 8) & 255}.${index & 255}`;

async function setUpEvent(inventory, organisationId) {
  const ctx = { organisationId, mode: 'live', keyId: 0, requestId: `bench_${randomBase62(12)}` };
  const slug = `bench-queue-${randomBase62(8).toLowerCase()}`;
  await inventory.upsertEvent({ fields: { slug, title: 'Bench Queue Night', timezone: 'Australia/Melbourne', startsAt: new Date(Date.now() + 30 * 86_400_000).toISOString() } }, ctx);
  const pool = await inventory.upsertPool({ eventIdOrSlug: slug, fields: { name: 'Floor', capacity: 100_000n } }, ctx);
  await inventory.upsertTicketType({ eventIdOrSlug: slug, fields: { name: 'GA', price: '50.00', bookingFee: '0.00', maxPerOrder: 4, poolIds: [pool.id] } }, ctx);
  await inventory.changeEventStatus({ idOrSlug: slug, action: 'publish' }, ctx);
  const event = await inventory.getEvent({ idOrSlug: slug }, ctx);
  return { slug, eventId: event.id.toString(), ctx };
}

/** One phase of arrivals: `count` new visitors at ARRIVAL_RATE, each from its own address; results with the visitor id each was given. */
async function arrivals(binary, url, from, count, name) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-queue-'));
  const targets = path.join(dir, 'targets.jsonl');
  const output = path.join(dir, 'results.bin');
  writeTargets(targets, { method: 'GET', url, headers: {}, body: '', count, eachHeaders: (index) => ({ 'X-Forwarded-For': addressOf(from + index) }) });
  await attack({ binary, targets, rate: ARRIVAL_RATE, seconds: count / ARRIVAL_RATE, timeoutSeconds: 10, output, name }).done;
  const child = spawn(binary, ['encode', '--to', 'json', output], { stdio: ['ignore', 'pipe', 'inherit'] });
  const results = [];
  for await (const line of readline.createInterface({ input: child.stdout, crlfDelay: Infinity })) {
    if (!line) continue;
    const raw = JSON.parse(line);
    const cookie = Object.entries(raw.headers ?? {}).find(([header]) => header.toLowerCase() === 'set-cookie')?.[1] ?? [];
    const visitor = /waiting_room_visitor=([^;]+)/.exec(cookie.join(';'))?.[1];
    const body = raw.body ? Buffer.from(raw.body, 'base64').toString('utf8') : '';
    const sentAt = Date.parse(raw.timestamp);
    results.push({ sentAt, doneAt: sentAt + raw.latency / 1e6, latencyMs: raw.latency / 1e6, status: raw.code, visitor, beforeOpening: body.includes('The sale opens in') });
  }
  fs.rmSync(dir, { recursive: true, force: true });
  return results;
}

/** Spearman's rho between two rankings of the same items (arrays of ranks, no ties). */
function spearman(a, b) {
  const n = a.length;
  let d2 = 0;
  for (let i = 0; i < n; i += 1) d2 += (a[i] - b[i]) ** 2;
  return 1 - (6 * d2) / (n * (n * n - 1));
}

async function main() {
  loadEnv();
  const site = loopbackOnly(process.env.CHECKOUT_BASE_URL ?? 'http://127.0.0.1:4100');
  const organisationId = Number(process.env.DEMO_ORGANISATION_ID);
  const inventory = createServiceClient(gen.inventory.InventoryService, loopbackOnly(process.env.INVENTORY_GRPC_ADDR ?? localGrpcAddress('inventory')));
  const orders = createServiceClient(gen.orders.OrdersService, loopbackOnly(process.env.ORDERS_GRPC_ADDR ?? localGrpcAddress('orders')));
  const redis = new Redis(loopbackOnly(process.env.REDIS_URL));
  const binary = vegetaBinary();
  const { slug, eventId, ctx } = await setUpEvent(inventory, organisationId);
  const page = `${site}/web/${organisationId}/events/${slug}`;
  const setRoom = (opensAt) => orders.setWaitingRoom({ eventIdOrSlug: slug, enabled: true, opensAt: opensAt.toISOString(), rate: String(SET_RATE) }, ctx);
  const keyBase = `orders:waiting-room:{${organisationId}:${eventId}}:`;
  try {
    await setRoom(new Date(Date.now() + 3_600_000));
    // Warm the page's event cache and connections with one visitor of its own (not counted).
    await fetch(page, { headers: { 'x-forwarded-for': '10.255.255.255' } });
    await redis.del(`${keyBase}queue`);

    const early = await arrivals(binary, page, 0, BEFORE_OPENING, 'before-opening');
    // The organiser's opening time comes: the queue opens now (between the two phases, a few hundred ms).
    await setRoom(new Date());
    const late = await arrivals(binary, page, BEFORE_OPENING, VISITORS - BEFORE_OPENING, 'after-opening');
    const all = [...early, ...late];
    const errors = all.filter((result) => result.status !== 200 || !result.visitor).length;
    const arrivalAnswers = {};
    for (const result of all) if (result.status !== 200) arrivalAnswers[result.status] = (arrivalAnswers[result.status] ?? 0) + 1;
    if (errors) console.log('arrivals not answered 200, by status (0: no answer):', arrivalAnswers);

    // Order: ranks as Redis holds them.
    const order = await redis.zrange(`${keyBase}queue`, 0, -1);
    const rank = new Map(order.map((visitor, index) => [visitor, index]));
    const bySend = (results) => results.filter((result) => result.visitor && rank.has(result.visitor)).sort((a, b) => a.sentAt - b.sentAt);
    const pre = bySend(early);
    const preRanks = pre.map((result) => rank.get(result.visitor));
    const preSortedRanks = [...preRanks].sort((a, b) => a - b);
    const rankOfRank = new Map(preSortedRanks.map((value, index) => [value, index]));
    const rho = spearman(pre.map((_result, index) => index), preRanks.map((value) => rankOfRank.get(value)));
    // An inversion: a post-opening visitor placed behind someone whose request was sent only after their own answer came.
    const post = bySend(late).sort((a, b) => rank.get(a.visitor) - rank.get(b.visitor));
    let inversions = 0;
    let latestStartAhead = -Infinity;
    for (const result of post) {
      if (latestStartAhead > result.doneAt) inversions += 1;
      latestStartAhead = Math.max(latestStartAhead, result.sentAt);
    }

    // Admission: the next in line poll every 100 ms, as waiting pages near the front do; admitted per second over MEASURE_SECONDS.
    // Any address of its own per visitor will do: the per-address pass limit is not what is measured.
    const addressByVisitor = new Map();
    all.forEach((result, index) => addressByVisitor.set(result.visitor, addressOf(index)));
    const admittedAt = new Map();
    let pollErrors = 0;
    let next = 0;
    let waitingSeen = false;
    const poll = async (visitor) => {
      try {
        const response = await fetch(`${page}/queue`, { headers: { cookie: `waiting_room_visitor=${visitor}`, 'x-forwarded-for': addressByVisitor.get(visitor) ?? '10.254.0.1', accept: 'application/json' } });
        const state = await response.json();
        if (response.status !== 200) pollErrors += 1;
        else if (state.state === 'admitted' && !admittedAt.has(visitor)) admittedAt.set(visitor, Date.now());
        else if (state.state === 'waiting') waitingSeen = true;
      } catch {
        pollErrors += 1;
      }
    };
    const window = Math.max(20, Math.ceil(SET_RATE / 2));
    const tick = async () => {
      while (next < order.length && admittedAt.has(order[next])) next += 1;
      await Promise.all(order.slice(next, next + window).filter((visitor) => !admittedAt.has(visitor)).map(poll));
    };
    // First the turns that came while the arrivals ran are taken, until the front of the line is waiting again.
    while (!waitingSeen && next < order.length) await tick();
    const from = Date.now() + 1000;
    while (Date.now() < from + MEASURE_SECONDS * 1000) {
      const at = Date.now();
      await tick();
      await sleep(Math.max(0, 100 - (Date.now() - at)));
    }
    const admittedInWindow = [...admittedAt.values()].filter((at) => at >= from && at < from + MEASURE_SECONDS * 1000).length;
    const admittedRate = admittedInWindow / MEASURE_SECONDS;

    // Forged and expired passes, shown by visitors far back in the line.
    let refused = 0;
    const forgedAnswers = {};
    const back = order.slice(-FORGED);
    await Promise.all(back.map(async (visitor, index) => {
      const good = DEVELOPMENT_PASSES.issue({ organisationId, eventId, visitorId: visitor, expiresAtMs: index % 2 ? Date.now() + 600_000 : Date.now() - 1_000 });
      const pass = index % 2 ? `${good.slice(0, -4)}AAAA` : good;
      const response = await fetch(page, { headers: { cookie: `waiting_room_visitor=${visitor}; waiting_room_pass_${organisationId}_${eventId}=${pass}`, 'x-forwarded-for': addressByVisitor.get(visitor) ?? '10.254.0.2' } });
      const html = await response.text();
      if (response.status === 403 && !html.includes('Continue to payment')) refused += 1;
      else forgedAnswers[response.status] = (forgedAnswers[response.status] ?? 0) + 1;
    }));
    if (refused < FORGED) console.log('forged or expired passes not refused, by status:', forgedAnswers);

    // Something else flushing the shared Redis (a suite that tests Redis loss) would void the figures.
    if (!(await redis.exists(`${keyBase}settings`))) throw new Error('the queue\'s Redis keys vanished during the run (Redis flushed by something else?): figures not recorded');

    const latency = percentiles(all.map((result) => result.latencyMs).sort((a, b) => a - b));
    const totalErrors = errors + pollErrors;
    const rows = [
      '| Visitors | before opening | queue page p50 / p99 / max | admitted/s (set) | errors | pre-open rho | post-open inversions | forged/expired refused |',
      '|---|---|---|---|---|---|---|---|',
      `| ${all.length} | ${early.filter((result) => result.beforeOpening).length} | ${fmt(latency.p50)} / ${fmt(latency.p99)} / ${fmt(latency.max)} ms | ${admittedRate.toFixed(1)} (${SET_RATE}) | ${totalErrors} | ${rho.toFixed(3)} | ${inversions} | ${refused} of ${FORGED} |`,
    ];
    console.log(rows.join('\n'));
    if (process.env.BENCH_RECORD !== '0') record('waiting-room', rows.join('\n'));
    console.log(`waiting-room: ${all.length} visitors, queue page p99 ${Math.round(latency.p99)} ms, admitted ${admittedRate.toFixed(1)}/s (set ${SET_RATE}/s), errors ${totalErrors}, pre-open order randomised (Spearman rho ${rho.toFixed(3)}), post-open order inversions ${inversions}, passes refused when forged ${refused} of ${FORGED}`);
  } finally {
    await orders.setWaitingRoom({ eventIdOrSlug: slug, enabled: false, opensAt: new Date().toISOString(), rate: String(SET_RATE) }, ctx).catch(() => undefined);
    for await (const keys of redis.scanStream({ match: `${keyBase}*`, count: 1_000 })) if (keys.length) await redis.del(...keys);
    await redis.quit();
    inventory.close();
    orders.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
