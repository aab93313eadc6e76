/**
 * Two inventory processes' servers (in this process, on free ports, the
 * real PostgreSQL and Redis) behind one client target: the round-robin
 * channel every service client uses spreads holds over both, both answer
 * grpc.health.v1, and when one drains the other takes every call.
 */
import * as grpc from '@grpc/grpc-js';
import {
  checkHealth,
  createHealthClient,
  createLogger,
  createServiceClient,
  gen,
  GRPC_CHANNEL_OPTIONS,
  randomBase62,
  type RequestContext,
  ServiceUnanswered,
  type ServiceRuntime,
} from '@partner-api/shared';
import { loadInventoryConfig, startInventory } from '@partner-api/inventory';

const ctx: RequestContext = { organisationId: 646464, mode: 'live', keyId: 1, requestId: 'it-scale-out' };
const INVENTORY = gen.inventory.InventoryService.typeName;

let first: ServiceRuntime;
let second: ServiceRuntime;
let target: string;
/** The server address of every call answered OK, as grpc-js saw it. */
const servedBy: string[] = [];
/** Every other answer: an attempt the client may send once more (D372, D378), so it is no served call. */
const notServed: Array<{ peer: string; code: grpc.status; details: string }> = [];
let client: ReturnType<typeof createServiceClient<(typeof gen.inventory.InventoryService)['method']>>;

/** Records which backend answered each attempt, and how. */
const recordPeer: grpc.Interceptor = (options, nextCall) => {
  const call = nextCall(options);
  return new grpc.InterceptingCall(call, {
    start: (metadata, _listener, next) =>
      next(metadata, {
        onReceiveStatus: (status, nextStatus) => {
          if (status.code === grpc.status.OK) servedBy.push(call.getPeer());
          else notServed.push({ peer: call.getPeer(), code: status.code, details: status.details });
          nextStatus(status);
        },
      }),
  });
};

const start = () =>
  startInventory(
    // A short connection age: connections are recycled several times during the test, and no call may fail for it.
    loadInventoryConfig({ ...process.env, GRPC_PORT: '0', OPS_PORT: '0', GRPC_MAX_CONNECTION_AGE_MS: '1500', GRPC_MAX_CONNECTION_AGE_GRACE_MS: '5000' }),
    createLogger('it', 'silent'),
  );

beforeAll(async () => {
  [first, second] = await Promise.all([start(), start()]);
  // One target naming both: what `dns:///<headless service>:<port>` resolves to in a cluster.
  target = `ipv4:127.0.0.1:${first.grpcPort},127.0.0.1:${second.grpcPort}`;
  client = createServiceClient(gen.inventory.InventoryService, target, { interceptors: [recordPeer] });
}, 60_000);

afterAll(async () => {
  client.close();
  await Promise.all([first.stop(), second.stop()]);
});

async function onSaleEvent(capacity: number) {
  const slug = `scale-${randomBase62(8).toLowerCase()}`;
  await client.upsertEvent({ fields: { slug, title: 'Scale-out', startsAt: new Date(Date.now() + 30 * 86_400_000).toISOString(), timezone: 'UTC' } }, ctx);
  const pool = await client.upsertPool({ eventIdOrSlug: slug, fields: { name: 'GA', capacity: BigInt(capacity) } }, ctx);
  const type = await client.upsertTicketType({ eventIdOrSlug: slug, fields: { name: 'GA', price: '10.00', bookingFee: '1.00', maxPerOrder: 10, poolIds: [pool.id] } }, ctx);
  await client.changeEventStatus({ idOrSlug: slug, action: 'publish' }, ctx);
  return { slug, typeId: type.id };
}

const hold = (slug: string, typeId: bigint) =>
  client.holdStock({ holdId: randomBase62(16), eventIdOrSlug: slug, lines: [{ ticketTypeId: typeId, quantity: 1 }], ttlSeconds: 900 }, ctx);

const available = async (slug: string) => Number((await client.listTicketTypes({ eventIdOrSlug: slug }, ctx)).data[0]!.available);

/**
 * The health status of `service` at `port`, once it is SERVING (it follows readiness within moments of the start). A check
 * that fails (its first connection slower than its deadline on a loaded machine) is asked again until the 10 s are up.
 */
async function servingStatus(health: ReturnType<typeof createHealthClient>, service: string): Promise<string> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const status = await checkHealth(health, service, 2_000).catch((error: unknown) => `failed: ${String(error)}`);
    if (status === 'SERVING' || Date.now() > deadline) return status;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** What a failed call says, with grpc-js's own account when the answer never came. */
const failure = (reason: unknown) => (reason instanceof ServiceUnanswered ? `${String(reason)} (gRPC ${reason.grpcCode}: ${reason.grpcDetails})` : String(reason));

const count = (peers: string[], port: number) => peers.filter((peer) => peer.endsWith(`:${port}`)).length;

describe('two inventory servers behind one client target', () => {
  it('both answer grpc.health.v1 as serving, for the whole server and for the inventory service', async () => {
    for (const port of [first.grpcPort, second.grpcPort]) {
      const health = createHealthClient(`127.0.0.1:${port}`);
      try {
        expect(await servingStatus(health, '')).toBe('SERVING');
        expect(await servingStatus(health, INVENTORY)).toBe('SERVING');
        await expect(checkHealth(health, 'no.such.Service', 2_000)).rejects.toMatchObject({ code: grpc.status.NOT_FOUND });
      } finally {
        health.close();
      }
    }
  }, 30_000);

  it('spreads holds over both servers, every hold taken exactly once', async () => {
    const { slug, typeId } = await onSaleEvent(1_000);
    servedBy.length = 0;
    notServed.length = 0;
    // Three waves of 40 concurrent holds, about 2 s apart: connections pass their 1.5 s age in between.
    for (let wave = 0; wave < 3; wave += 1) {
      const held = await Promise.all(Array.from({ length: 40 }, () => hold(slug, typeId)));
      expect(held).toHaveLength(40);
      if (wave < 2) await new Promise((resolve) => setTimeout(resolve, 2_000));
    }
    const onFirst = count(servedBy, first.grpcPort);
    const onSecond = count(servedBy, second.grpcPort);
    expect(onFirst + onSecond).toBe(120);
    // An attempt that reached an aged connection as it closed is refused (UNAVAILABLE) and sent again; it is not counted twice.
    expect(notServed.filter((attempt) => attempt.code !== grpc.status.UNAVAILABLE)).toEqual([]);
    // Round robin: about half each; at least a quarter each whatever the timing of reconnects.
    expect(onFirst).toBeGreaterThanOrEqual(30);
    expect(onSecond).toBeGreaterThanOrEqual(30);
    expect(await available(slug)).toBe(1_000 - 120);
  }, 30_000);

  it('sends every call to the other server while one drains, without a failed call', async () => {
    const { slug, typeId } = await onSaleEvent(1_000);
    const health = createHealthClient(target, GRPC_CHANNEL_OPTIONS);
    try {
      let stopping = true;
      // 'held', or why the call failed (so a failure says what grpc-js or the server answered).
      const outcomes: string[] = [];
      const load = (async () => {
        while (stopping) {
          const batch = await Promise.allSettled(Array.from({ length: 10 }, () => hold(slug, typeId)));
          for (const result of batch) outcomes.push(result.status === 'fulfilled' ? 'held' : `failed: ${failure(result.reason)}`);
        }
      })();
      await new Promise((resolve) => setTimeout(resolve, 300));
      await second.stop();
      servedBy.length = 0;
      await new Promise((resolve) => setTimeout(resolve, 500));
      stopping = false;
      await load;

      expect(outcomes.filter((outcome) => outcome !== 'held')).toEqual([]);
      // After the drain, the calls went to the first server only.
      expect(servedBy.length).toBeGreaterThan(0);
      expect(count(servedBy, first.grpcPort)).toBe(servedBy.length);
      expect(await available(slug)).toBe(1_000 - outcomes.length);
      // The shared target is still healthy: one instance serves.
      expect(await checkHealth(health, INVENTORY, 2_000)).toBe('SERVING');
    } finally {
      health.close();
    }
  }, 30_000);
});
