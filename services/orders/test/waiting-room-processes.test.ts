/**
 * One waiting room served by two orders processes (the built service, each
 * in a process of its own) on one Redis and PostgreSQL: visitors join and
 * poll through both, as a load balancer would send them, and one process
 * is SIGKILLed mid-way, with a visitor's request in flight, then replaced.
 * There is one queue with each visitor once, nobody is admitted twice or
 * ahead of someone before them in the line, and the visitors who came
 * after the opening stand in the order they came, across the kill.
 */
import type { ChildProcess } from 'node:child_process';
import { createServiceClient, gen, redisFromEnv, type RedisClient, type RequestContext } from '@partner-api/shared';
import { WaitingRoomStore, type RoomKey } from '../src/storage/waiting-room-store';
import { VISITOR_COOKIE } from '../src/web/waiting-room-routes';
import { Backends, freePort, newOrganisation, startOrdersProcess } from './support';

jest.setTimeout(120_000);

const backends = new Backends();
const children: ChildProcess[] = [];
let redis: RedisClient;
let ctx: RequestContext;

/** Every process of a deployment signs passes with the same secret. */
const SHARED_ENV = { WAITING_ROOM_PASS_SECRET: 'integration-test-two-processes-pass-secret', WAITING_ROOM_PASSES_PER_ADDRESS: '10000' };
const EARLY = 30;
const LATE = 40;
const RATE = 5;

interface OrdersProcess {
  child: ChildProcess;
  site: string;
  grpc: string;
}

async function ordersProcess(): Promise<OrdersProcess> {
  const [grpcPort, httpPort, opsPort] = [await freePort(), await freePort(), await freePort()];
  const { child } = await startOrdersProcess({ ...backends.ordersEnv(SHARED_ENV), GRPC_PORT: String(grpcPort), HTTP_PORT: String(httpPort), OPS_PORT: String(opsPort) });
  children.push(child);
  return { child, site: `http://127.0.0.1:${httpPort}`, grpc: `127.0.0.1:${grpcPort}` };
}

/** A visitor's browser: the visitor id cookie it was given, the passes it holds by when they expire. */
class Visitor {
  id = '';
  admittedUntil: string | undefined;
  constructor(readonly name: string) {}

  private cookie(): Record<string, string> {
    return this.id ? { cookie: `${VISITOR_COOKIE}=${this.id}` } : {};
  }

  /** Opens the sale page (a join on the first visit); the state the page shows. */
  async open(through: OrdersProcess, path: string): Promise<'before_opening' | 'waiting' | 'admitted'> {
    const response = await fetch(`${through.site}${path}`, { headers: this.cookie(), redirect: 'manual' });
    const set = response.headers.getSetCookie().find((line) => line.startsWith(`${VISITOR_COOKIE}=`));
    if (set) this.id = set.split(';')[0]!.split('=')[1]!;
    const html = await response.text();
    if (response.headers.getSetCookie().some((line) => line.startsWith('waiting_room_pass_'))) return 'admitted';
    if (html.includes('Do not refresh')) return html.includes('data-testid="position"') ? 'waiting' : 'before_opening';
    throw new Error(`${this.name}: the sale page answered ${response.status}: ${html.slice(0, 300)}`);
  }

  /** The waiting page's poll: the state, and when an admission's pass expires (the same admission gives the same expiry). */
  async poll(through: OrdersProcess, path: string): Promise<{ state: string; pass_expires_at?: string }> {
    const response = await fetch(`${through.site}${path}/queue`, { headers: this.cookie() });
    if (!response.ok) throw new Error(`${this.name}: the poll answered ${response.status}`);
    return (await response.json()) as { state: string; pass_expires_at?: string };
  }
}

beforeAll(async () => {
  await backends.start();
  redis = redisFromEnv();
  ctx = newOrganisation();
}, 60_000);

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await redis?.quit();
  await backends.stop();
});

it('serves one fair queue from two processes, one of them killed mid-way and replaced', async () => {
  const event = await backends.eventOnSale(ctx, 100);
  const room: RoomKey = { organisationId: ctx.organisationId, eventId: event.eventId.toString() };
  const path = `/web/${ctx.organisationId}/events/${event.slug}`;
  const started = await Promise.all([ordersProcess(), ordersProcess()]);
  let one = started[0];
  const two = started[1];
  const admin = createServiceClient(gen.orders.OrdersService, one.grpc);
  const opensAtMs = Date.now() + 4_000;
  await admin.setWaitingRoom({ eventIdOrSlug: event.slug, enabled: true, opensAt: new Date(opensAtMs).toISOString(), rate: String(RATE) }, ctx);
  admin.close();

  // Before the opening, through either process.
  const early = Array.from({ length: EARLY }, (_, index) => new Visitor(`early-${index}`));
  for (const [index, visitor] of early.entries()) expect(await visitor.open(index % 2 ? two : one, path)).toBe('before_opening');
  expect(Date.now()).toBeLessThan(opensAtMs);
  await new Promise((resolve) => setTimeout(resolve, opensAtMs + 200 - Date.now()));

  // After it, one at a time, alternating. Half-way the first process dies with a queued visitor's reload in flight;
  // the next visitors come through the other until a replacement is up, then through both again.
  const late = Array.from({ length: LATE }, (_, index) => new Visitor(`late-${index}`));
  let replacement: Promise<OrdersProcess> | undefined;
  for (const [index, visitor] of late.entries()) {
    if (index === LATE / 2) {
      const reload = late[index - 2]!.open(one, path).catch(() => 'unanswered');
      one.child.kill('SIGKILL');
      await reload;
      replacement = ordersProcess();
    }
    if (replacement && index === (3 * LATE) / 4) one = await replacement;
    const through = index % 2 === 0 && (!replacement || index >= (3 * LATE) / 4) ? one : two;
    await visitor.open(through, path);
  }

  const everyone = [...early, ...late];
  expect(new Set(everyone.map((visitor) => visitor.id)).size).toBe(EARLY + LATE);
  const store = new WaitingRoomStore(redis);
  const order = await store.order(room);
  // One queue, each visitor in it once: the early ones first (their order drawn at the opening), then the late ones as they came.
  expect(order).toHaveLength(EARLY + LATE);
  expect(new Set(order.slice(0, EARLY))).toEqual(new Set(early.map((visitor) => visitor.id)));
  expect(order.slice(EARLY)).toEqual(late.map((visitor) => visitor.id));

  // Everyone polls through both processes until their turn has come. Each round asks from the back of the line to
  // the front: the line only moves forward, so whoever is admitted, everyone ahead of them is too by the end of it.
  const byId = new Map(everyone.map((visitor) => [visitor.id, visitor]));
  const backToFront = [...order].reverse().map((id) => byId.get(id)!);
  const deadline = Date.now() + 60_000;
  while (everyone.some((visitor) => !visitor.admittedUntil)) {
    if (Date.now() > deadline) throw new Error(`still waiting: ${everyone.filter((visitor) => !visitor.admittedUntil).length}`);
    for (const visitor of backToFront) {
      if (visitor.admittedUntil) continue;
      const [first, second] = await Promise.all([visitor.poll(one, path), visitor.poll(two, path)]);
      if (first.state !== 'admitted' && second.state !== 'admitted') continue;
      // Admitted once: asked again (through either process) the same admission, with the same pass expiry.
      const [again, otherAgain] = await Promise.all([visitor.poll(one, path), visitor.poll(two, path)]);
      const expiries = [first, second, again, otherAgain].filter((answer) => answer.state === 'admitted').map((answer) => answer.pass_expires_at);
      expect(new Set(expiries).size).toBe(1);
      expect([again.state, otherAgain.state]).toEqual(['admitted', 'admitted']);
      visitor.admittedUntil = expiries[0];
    }
    // Nobody's turn came before the turn of anyone ahead of them: the admitted are the front of the line.
    const admitted = order.map((id) => Boolean(byId.get(id)!.admittedUntil));
    const firstWaiting = admitted.indexOf(false);
    expect(firstWaiting === -1 ? [] : admitted.slice(firstWaiting).filter(Boolean)).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }

  const stats = await store.stats(room, 20);
  expect(stats).toMatchObject({ joined: EARLY + LATE, admitted: EARLY + LATE, waiting: 0 });
});
