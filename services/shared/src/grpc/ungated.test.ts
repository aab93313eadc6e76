import pino from 'pino';
import { InventoryService } from '../gen/partnerapi/inventory/v1/inventory_pb';
import { CallGate } from './call-gate';
import { createServiceClient, type ServiceClient } from './client';
import type { RequestContext } from './context';
import { addService, startGrpcServer, type GrpcServerHandle } from './server';

// A full gate must still let through the calls that give back what it admitted (D449).
const ctx: RequestContext = { organisationId: 1, mode: 'live', keyId: 10, requestId: 'req_ungated' };
let server: GrpcServerHandle;
let client: ServiceClient<(typeof InventoryService)['method']>;
let batchedClient: ServiceClient<(typeof InventoryService)['method']>;
let finishHold: () => void = () => {};
const released: string[] = [];

beforeAll(async () => {
  const gate = new CallGate({ maxInFlight: 1, maxQueueMs: 0 });
  server = await startGrpcServer(
    (grpcServer) =>
      addService(
        grpcServer,
        InventoryService,
        {
          holdStock: () =>
            new Promise((resolve) => {
              finishHold = () => resolve({ eventId: 1n, eventUrl: 'held', lines: [] });
            }),
          releaseHold: async (request) => {
            released.push(request.holdId);
            return {};
          },
          getEvent: async () => ({}),
        },
        pino({ level: 'silent' }),
        undefined,
        gate,
        ['releaseHold'],
      ),
    '127.0.0.1',
    0,
  );
  client = createServiceClient(InventoryService, `127.0.0.1:${server.port}`);
  batchedClient = createServiceClient(InventoryService, `127.0.0.1:${server.port}`, { batched: ['releaseHold', 'getEvent'] });
});

afterAll(() => {
  finishHold();
  client.close();
  batchedClient.close();
  server.server.forceShutdown();
});

test('with the gate full, a gated call is refused and an ungated release is run, alone or in a batch', async () => {
  const holding = client.holdStock({ holdId: 'first' }, ctx);
  // Wait until the hold occupies the gate's only slot.
  for (let tries = 0; tries < 100; tries += 1) {
    const refused = await client.getEvent({}, ctx).then(() => false, () => true);
    if (refused) break;
  }
  await expect(client.getEvent({}, ctx)).rejects.toMatchObject({ code: 'rate_limited' });
  await expect(batchedClient.getEvent({}, ctx)).rejects.toMatchObject({ code: 'rate_limited' });

  await expect(client.releaseHold({ holdId: 'alone' }, ctx)).resolves.toBeDefined();
  await expect(batchedClient.releaseHold({ holdId: 'batched' }, ctx)).resolves.toBeDefined();
  expect(released).toEqual(['alone', 'batched']);

  finishHold();
  await expect(holding).resolves.toMatchObject({ eventUrl: 'held' });
});
