/**
 * The waiting room's queue in the real Redis: random order for the visitors
 * who came before the opening, first come first served after it, admission
 * at the set rate, lapsed turns and expired passes, the per-address pass
 * limit, one cluster slot per event, and two processes sharing one queue.
 */
import calculateSlot from 'cluster-key-slot';
import { randomBase62, redisFromEnv, type RedisClient } from '@partner-api/shared';
import { newVisitorId, WaitingRoom, type WaitingRoomPolicy } from '../src/domain/waiting-room';
import { WaitingRoomPasses } from '../src/domain/waiting-room-passes';
import { WaitingRoomStore, type RoomKey } from '../src/storage/waiting-room-store';

const clients: RedisClient[] = [];
const prefix = `it:waiting-room:${randomBase62(8)}:`;
const passes = new WaitingRoomPasses('integration-test-waiting-room-pass-secret');
const POLICY: WaitingRoomPolicy = { automaticRate: 20, turnSeconds: 600, passSeconds: 600, passesPerAddress: 1_000, addressWindowSeconds: 3_600 };
let nextEvent = 1;

/** A room on a client of its own, as another orders process would have. */
function process(policy: Partial<WaitingRoomPolicy> = {}): WaitingRoom {
  const redis = redisFromEnv();
  clients.push(redis);
  return new WaitingRoom(new WaitingRoomStore(redis, prefix), passes, { ...POLICY, ...policy });
}
const storeOn = () => {
  const redis = redisFromEnv();
  clients.push(redis);
  return new WaitingRoomStore(redis, prefix);
};
const newRoom = (): RoomKey => ({ organisationId: 7, eventId: String(nextEvent++) });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Spearman's rank correlation of a permutation of 0..n-1 with the identity. */
function spearman(order: number[]): number {
  const n = order.length;
  const d2 = order.reduce((sum, value, rank) => sum + (value - rank) ** 2, 0);
  return 1 - (6 * d2) / (n * (n * n - 1));
}

afterAll(async () => {
  const redis = redisFromEnv();
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) for (const key of keys) await redis.del(key);
  await redis.quit();
  await Promise.all(clients.map((client) => client.quit()));
});

describe('the waiting room queue', () => {
  it('puts the visitors who came before the opening in a random order, and those after them first come first served', async () => {
    const room = process();
    const key = newRoom();
    const opensAtMs = Date.now() + 5_000;
    await room.configure(key, { enabled: true, opensAtMs, rate: 1 });
    const early = Array.from({ length: 300 }, () => newVisitorId());
    for (const visitor of early) expect((await room.visit(key, visitor, '198.51.100.1')).kind).toBe('before_opening');
    await sleep(opensAtMs + 100 - Date.now());
    const late = Array.from({ length: 50 }, () => newVisitorId());
    for (const visitor of late) expect((await room.visit(key, visitor, '198.51.100.1')).kind).not.toBe('before_opening');

    const order = await storeOn().order(key);
    expect(order).toHaveLength(350);
    // Every early visitor stands before every late one.
    expect(new Set(order.slice(0, 300))).toEqual(new Set(early));
    expect(order.slice(300)).toEqual(late);
    // Their order has nothing to do with when they came (|rho| of a random permutation of 300: sd ~0.06).
    const rho = spearman(order.slice(0, 300).map((visitor) => early.indexOf(visitor)));
    expect(Math.abs(rho)).toBeLessThan(0.25);
    expect(order.slice(0, 300)).not.toEqual(early);
  }, 20_000);

  it('admits in queue order at the set rate, and shows the others their position and wait', async () => {
    const room = process();
    const key = newRoom();
    await room.configure(key, { enabled: true, opensAtMs: Date.now(), rate: 10 });
    const visitors = Array.from({ length: 40 }, () => newVisitorId());
    const started = Date.now();
    for (const visitor of visitors) await room.visit(key, visitor, '198.51.100.2');
    // 10 turns a second: however the 40 arrivals fell against the turns, at least 20 more have come 2 s after the last
    // (21 when the first visitor came a turn or more after the opening and went at once, 20 when sooner).
    await sleep(2_000);
    const seen = [];
    for (const visitor of visitors) seen.push(await room.visit(key, visitor, '198.51.100.2'));
    const admitted = seen.filter((visit) => visit.kind === 'admitted').length;
    expect(admitted).toBeGreaterThanOrEqual(20);
    expect(admitted).toBeLessThanOrEqual(1 + Math.ceil((Date.now() - started) / 100));
    expect(seen.slice(0, admitted).every((visit) => visit.kind === 'admitted')).toBe(true);
    const firstWaiting = seen[admitted]!;
    expect(firstWaiting).toEqual({ kind: 'waiting', position: 1, waitSeconds: 1 });
    // The line moved on while the 40 were asked, by a turn or two.
    const last = seen[39] as { kind: string; position: number };
    expect(last.kind).toBe('waiting');
    expect(40 - admitted - last.position).toBeGreaterThanOrEqual(0);
    expect(40 - admitted - last.position).toBeLessThanOrEqual(2);

    // A second later about 10 more have had their turn.
    await sleep(1_000);
    const later = await room.visit(key, visitors[39]!, '198.51.100.2');
    expect(later.kind).toBe('waiting');
    expect((later as { position: number }).position).toBeLessThanOrEqual(40 - admitted - 9);
    expect((await room.stats(key)).admitted).toBe(admitted);
  }, 15_000);

  it('issues a pass bound to the event and the browser, which expires', async () => {
    const room = process({ passSeconds: 1 });
    const key = newRoom();
    await room.configure(key, { enabled: true, opensAtMs: Date.now() - 1_000, rate: 100 });
    const visitor = newVisitorId();
    const visit = await room.visit(key, visitor, '198.51.100.3');
    expect(visit.kind).toBe('admitted');
    const pass = (visit as { pass: string }).pass;
    expect(room.checkPass(key, pass, visitor)).toBe('valid');
    expect(room.checkPass({ ...key, eventId: `${key.eventId}0` }, pass, visitor)).toBe('other_event');
    expect(room.checkPass(key, pass, newVisitorId())).toBe('other_browser');
    expect(room.checkPass(key, `${pass.slice(0, -2)}AA`, visitor)).toBe('forged');
    expect(room.checkPass(key, 'p1.7.1.x.9999999999999.', visitor)).toBe('forged');
    expect(room.checkPass(key, undefined, visitor)).toBe('missing');
    // Visiting again re-issues the same admission, not a second one.
    expect(await room.visit(key, visitor, '198.51.100.3')).toMatchObject({ kind: 'admitted' });
    expect((await room.stats(key)).admitted).toBe(1);
    await sleep(1_100);
    expect(room.checkPass(key, pass, visitor)).toBe('expired');
    // The turn was used: the visitor may only join the back again.
    expect((await room.visit(key, visitor, '198.51.100.3')).kind).toBe('turn_lapsed');
    expect(await room.rejoin(key, visitor)).toBe(true);
    expect((await storeOn().order(key)).at(-1)).toBe(visitor);
  });

  it('takes the turn of a visitor who did not come back for it within the window', async () => {
    const room = process({ turnSeconds: 1 });
    const key = newRoom();
    await room.configure(key, { enabled: true, opensAtMs: Date.now() + 300, rate: 10 });
    const absent = newVisitorId();
    expect((await room.visit(key, absent, '198.51.100.4')).kind).toBe('before_opening');
    await sleep(300);
    for (let i = 0; i < 30; i += 1) await room.visit(key, newVisitorId(), '198.51.100.4');
    // 10 a second, 1 s to come back: gone once more than 10 have had their turn after them.
    await sleep(1_500);
    expect((await room.visit(key, absent, '198.51.100.4')).kind).toBe('turn_lapsed');
  });

  it('limits the passes one address takes for an event', async () => {
    const room = process({ passesPerAddress: 2 });
    const key = newRoom();
    await room.configure(key, { enabled: true, opensAtMs: Date.now() - 10_000, rate: 10_000 });
    const kinds = [];
    for (let i = 0; i < 4; i += 1) kinds.push((await room.visit(key, newVisitorId(), '203.0.113.50')).kind);
    expect(kinds).toEqual(['admitted', 'admitted', 'address_limited', 'address_limited']);
    expect((await room.visit(key, newVisitorId(), '203.0.113.51')).kind).toBe('admitted');
  });

  it('keeps the boundary when the rate changes on an open queue, and lets everyone through when off', async () => {
    const room = process();
    const key = newRoom();
    const opensAtMs = Date.now();
    await room.configure(key, { enabled: true, opensAtMs, rate: 5 });
    expect((await room.stats(key)).rate).toBe(5);
    const visitors = Array.from({ length: 12 }, () => newVisitorId());
    for (const visitor of visitors) await room.visit(key, visitor, '198.51.100.6');
    await sleep(1_000);
    await room.configure(key, { enabled: true, opensAtMs, rate: 1 });
    const kinds = [];
    for (const visitor of visitors) kinds.push((await room.visit(key, visitor, '198.51.100.6')).kind);
    // About 6 had their turn before the change (1 + 5 a second); the new rate counts on from the change.
    const admitted = kinds.filter((kind) => kind === 'admitted').length;
    expect(admitted).toBeGreaterThanOrEqual(5);
    expect(admitted).toBeLessThanOrEqual(8);
    await room.configure(key, { enabled: false, opensAtMs: Date.now(), rate: 0 });
    expect((await room.visit(key, newVisitorId(), '198.51.100.6')).kind).toBe('open');
    expect((await room.stats(key)).settings).toMatchObject({ enabled: false, rate: 0 });
  });

  it('saves up no turns while nobody waits: a visitor to an empty line long after the opening is admitted, the next waits their turn', async () => {
    const room = process();
    const key = newRoom();
    await room.configure(key, { enabled: true, opensAtMs: Date.now() - 3_600_000, rate: 0.5 });
    expect((await room.visit(key, newVisitorId(), '198.51.100.9')).kind).toBe('admitted');
    expect(await room.visit(key, newVisitorId(), '198.51.100.9')).toEqual({ kind: 'waiting', position: 1, waitSeconds: 2 });
    expect(await room.visit(key, newVisitorId(), '198.51.100.9')).toEqual({ kind: 'waiting', position: 2, waitSeconds: 4 });
  });

  it('keeps every key of an event in one cluster slot', () => {
    const keys = storeOn().keysOf({ organisationId: 12, eventId: '345' });
    const slots = new Set([keys.settings, keys.queue, keys.arrivals, keys.admitted, keys.used, keys.address('198.51.100.7')].map((key) => calculateSlot(key)));
    expect(slots.size).toBe(1);
    expect(calculateSlot(storeOn().keysOf({ organisationId: 12, eventId: '346' }).queue)).not.toBe([...slots][0]);
  });

  it('serves one queue from two processes: nobody admitted twice, the order the same from both', async () => {
    const [one, two] = [process(), process()];
    const key = newRoom();
    await one.configure(key, { enabled: true, opensAtMs: Date.now() - 1_000, rate: 50 });
    const visitors = Array.from({ length: 200 }, () => newVisitorId());
    // Each visitor polls both processes at once, twice.
    const visits = await Promise.all(visitors.flatMap((visitor) => [one, two, one, two].map((room) => room.visit(key, visitor, '198.51.100.8'))));
    const admittedVisitors = new Set(visitors.filter((_visitor, index) => visits.slice(index * 4, index * 4 + 4).some((visit) => visit.kind === 'admitted')));
    const stats = await two.stats(key);
    expect(stats.admitted).toBe(admittedVisitors.size);
    expect(stats.joined).toBe(200);
    // The rest wait, or had their turn come after their last poll.
    expect(stats.admitted + stats.waiting).toBeLessThanOrEqual(200);
    expect(stats.admitted).toBeGreaterThan(0);
    expect(await storeOn().order(key)).toHaveLength(200);
  });
});
