/**
 * A backend that was away comes back within about a second, however long
 * it was away (D356): the channel tries it again at least every second
 * instead of backing off towards grpc-js's two minutes.
 */
import { fork } from 'node:child_process';
import http2 from 'node:http2';
import net from 'node:net';
import path from 'node:path';
import type { GenService } from '@bufbuild/protobuf/codegenv2';
import pino from 'pino';
import { InventoryService } from '../gen/partnerapi/inventory/v1/inventory_pb';
import { OrdersService } from '../gen/partnerapi/orders/v1/orders_pb';
import { ServiceUnanswered } from './call-errors';
import { createServiceClient } from './client';
import { addService, startGrpcServer } from './server';

const ctx = { organisationId: 1, mode: 'live' as const, keyId: 1, requestId: 'req_reconnect' };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it('tries a lost backend at least every second, and serves again within about a second once it is back', async () => {
  // Something on the port that refuses to speak gRPC: every connection attempt is counted and fails.
  let attempts = 0;
  const refuser = net.createServer((socket) => {
    attempts += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => refuser.listen(0, '127.0.0.1', resolve));
  const port = (refuser.address() as net.AddressInfo).port;
  const client = createServiceClient(InventoryService, `127.0.0.1:${port}`);
  const hold = () => client.holdStock({ holdId: 'h', eventIdOrSlug: 'e', lines: [] }, ctx, { deadlineMs: 150 });
  try {
    // Ten seconds away, calls arriving all the while (each fails at once or at its deadline).
    const away = Date.now();
    while (Date.now() - away < 10_000) {
      await expect(hold()).rejects.toBeDefined();
      await sleep(200);
    }
    // grpc-js's defaults try at about 0, 1, 2.6, 5.2 and 9.3 s: five attempts. Every second at most: ten.
    expect(attempts).toBeGreaterThanOrEqual(8);

    await new Promise<void>((resolve) => refuser.close(() => resolve()));
    const server = await startGrpcServer(
      (grpcServer) => addService(grpcServer, InventoryService, { holdStock: async () => ({ eventId: 1n, eventUrl: 'back', lines: [] }) }, pino({ level: 'silent' })),
      '127.0.0.1',
      port,
    );
    try {
      const back = Date.now();
      for (;;) {
        const answer = await hold().catch(() => undefined);
        if (answer) break;
        if (Date.now() - back > 5_000) throw new Error('the backend was not reached again within 5 s');
        await sleep(50);
      }
      expect(Date.now() - back).toBeLessThan(2_000);
    } finally {
      server.server.forceShutdown();
    }
  } finally {
    client.close();
    refuser.close();
  }
}, 30_000);

it('rides out a backend restart: calls made while it is away for under a second wait for it and are answered (D368)', async () => {
  const serve = (port: number) =>
    startGrpcServer(
      (grpcServer) => addService(grpcServer, InventoryService, { holdStock: async () => ({ eventId: 1n, eventUrl: 'up', lines: [] }) }, pino({ level: 'silent' })),
      '127.0.0.1',
      port,
    );
  const first = await serve(0);
  const client = createServiceClient(InventoryService, `127.0.0.1:${first.port}`);
  const hold = () => client.holdStock({ holdId: 'h', eventIdOrSlug: 'e', lines: [] }, ctx, { deadlineMs: 5_000 });
  let second: Awaited<ReturnType<typeof serve>> | undefined;
  try {
    await hold();
    first.server.forceShutdown();
    // Back on the same port 600 ms later, as a restarted pod behind the same address.
    const restart = sleep(600).then(async () => (second = await serve(first.port)));
    // A call already on its way when the connection drops fails (a 500 the partner may retry); these come after.
    await sleep(100);
    const outcomes: string[] = [];
    const startedAt = Date.now();
    while (Date.now() - startedAt < 1_000) {
      outcomes.push(await hold().then(() => 'answered', (error: { code?: string }) => `failed: ${error.code ?? String(error)}`));
      await sleep(50);
    }
    await restart;
    expect(outcomes.filter((outcome) => outcome !== 'answered')).toEqual([]);
  } finally {
    second?.server.forceShutdown();
    client.close();
  }
}, 30_000);

it('gives up on a backend that stays away after a bounded wait, not at the call’s deadline', async () => {
  const refuser = net.createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => refuser.listen(0, '127.0.0.1', resolve));
  const client = createServiceClient(InventoryService, `127.0.0.1:${(refuser.address() as net.AddressInfo).port}`);
  try {
    await expect(client.holdStock({ holdId: 'h', eventIdOrSlug: 'e', lines: [] }, ctx, { deadlineMs: 500 })).rejects.toBeDefined();
    const startedAt = Date.now();
    await expect(client.holdStock({ holdId: 'h', eventIdOrSlug: 'e', lines: [] }, ctx, { deadlineMs: 20_000 })).rejects.toBeDefined();
    expect(Date.now() - startedAt).toBeLessThan(5_000);
  } finally {
    client.close();
    refuser.close();
  }
}, 30_000);

type InventoryClient = ReturnType<typeof createServiceClient<typeof InventoryService extends GenService<infer M> ? M : never>>;
type OrdersClient = ReturnType<typeof createServiceClient<typeof OrdersService extends GenService<infer M> ? M : never>>;

/**
 * A backend in a process of its own that takes every call and never answers
 * it, telling its parent when a call arrived: the moment to SIGKILL it. Raw
 * grpc-js with pass-through bytes, so it needs no build of this package.
 */
const HANGING_BACKEND = `
const grpc = require('@grpc/grpc-js');
const bytes = (value) => value;
const method = (service, name) => ({ path: '/partnerapi.' + service + '/' + name, requestStream: false, responseStream: false,
  requestSerialize: bytes, requestDeserialize: bytes, responseSerialize: bytes, responseDeserialize: bytes });
const server = new grpc.Server();
const hang = () => process.send('called');
server.addService({ GetEvent: method('inventory.v1.InventoryService', 'GetEvent'), HoldStock: method('inventory.v1.InventoryService', 'HoldStock') }, { GetEvent: hang, HoldStock: hang });
server.addService({ AbandonCheckoutSession: method('orders.v1.OrdersService', 'AbandonCheckoutSession') }, { AbandonCheckoutSession: hang });
server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, port) => process.send(error ? String(error) : port));
`;

describe('a call in flight when its backend is killed (D372, D392)', () => {
  const silent = pino({ level: 'silent' });
  /** The backend that replaces the killed one on its port, counting the calls it gets. */
  const answering = (port: number, calls: string[]) =>
    startGrpcServer(
      (grpcServer) => {
        addService(
          grpcServer,
          InventoryService,
          {
            getEvent: async () => {
              calls.push('getEvent');
              return { object: 'event', id: 7n, slug: 'seven' };
            },
            holdStock: async () => {
              calls.push('holdStock');
              return { eventId: 7n, eventUrl: 'again', lines: [] };
            },
          },
          silent,
        );
        addService(
          grpcServer,
          OrdersService,
          {
            abandonCheckoutSession: async () => {
              calls.push('abandonCheckoutSession');
              return { released: true };
            },
          },
          silent,
        );
      },
      '127.0.0.1',
      port,
    );

  /** Makes `call` to the hanging backend, SIGKILLs it once the call reached it, and starts the answering one on its port 300 ms later. */
  async function killUnder(call: (clients: { inventory: InventoryClient; orders: OrdersClient }) => Promise<unknown>) {
    const hanging = fork('-e', [HANGING_BACKEND], { cwd: path.join(__dirname, '..', '..'), execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const exited = new Promise((resolve) => hanging.once('exit', resolve));
    const messages: unknown[] = [];
    hanging.on('message', (message) => messages.push(message));
    const secondCalls: string[] = [];
    let second: Awaited<ReturnType<typeof answering>> | undefined;
    let clients: { inventory: InventoryClient; orders: OrdersClient } | undefined;
    try {
      while (messages.length === 0) await sleep(10);
      const port = messages[0];
      if (typeof port !== 'number') throw new Error(`the hanging backend did not start: ${String(port)}`);
      clients = { inventory: createServiceClient(InventoryService, `127.0.0.1:${port}`), orders: createServiceClient(OrdersService, `127.0.0.1:${port}`) };
      const outcome = call(clients).then(
        (value) => ({ answered: value }),
        (error: { code?: string }) => ({ failed: error.code ?? String(error) }),
      );
      while (!messages.includes('called')) await sleep(5);
      hanging.kill('SIGKILL');
      await exited;
      await sleep(300);
      second = await answering(port, secondCalls);
      return { outcome: await outcome, secondCalls };
    } finally {
      hanging.kill('SIGKILL');
      second?.server.forceShutdown();
      clients?.inventory.close();
      clients?.orders.close();
    }
  }

  it('sends a side-effect-free read again once a backend is back, and answers it', async () => {
    const { outcome, secondCalls } = await killUnder(({ inventory }) => inventory.getEvent({ idOrSlug: 'seven' }, ctx, { deadlineMs: 5_000 }));
    expect(outcome).toEqual({ answered: expect.objectContaining({ slug: 'seven' }) });
    expect(secondCalls).toEqual(['getEvent']);
  }, 30_000);

  it('never sends a call with side effects twice: it fails as unanswered (a 500 its caller may retry with its key)', async () => {
    const { outcome, secondCalls } = await killUnder(({ inventory }) => inventory.holdStock({ holdId: 'h', eventIdOrSlug: 'e', lines: [] }, ctx, { deadlineMs: 5_000 }));
    expect(outcome).toEqual({ failed: 'internal_error' });
    expect(secondCalls).toEqual([]);
  }, 30_000);

  it('sends an IDEMPOTENT write again once a backend is back, and answers it (D392)', async () => {
    const { outcome, secondCalls } = await killUnder(({ orders }) => orders.abandonCheckoutSession({ id: 'cs_1' }, ctx, { deadlineMs: 5_000 }));
    expect(outcome).toEqual({ answered: expect.objectContaining({ released: true }) });
    expect(secondCalls).toEqual(['abandonCheckoutSession']);
  }, 30_000);
});

/**
 * An HTTP/2 front for a real gRPC server that refuses the first `refusals`
 * streams it gets (RST_STREAM REFUSED_STREAM, what a server does to a stream
 * that reaches a connection it has begun to close) and passes every later
 * one through, headers, body and trailers.
 */
async function refusingFront(backendPort: number, refusals: number) {
  const backend = http2.connect(`http://127.0.0.1:${backendPort}`);
  let refused = 0;
  const front = http2.createServer();
  front.on('stream', (stream, headers) => {
    if (refused < refusals) {
      refused += 1;
      stream.on('error', () => undefined); // the refusal itself, reported on our side of the stream too
      stream.close(http2.constants.NGHTTP2_REFUSED_STREAM);
      return;
    }
    const upstream = backend.request(headers);
    let trailers: http2.IncomingHttpHeaders = {};
    upstream.on('response', (responseHeaders) => stream.respond(responseHeaders, { waitForTrailers: true }));
    upstream.on('trailers', (received) => (trailers = received));
    stream.on('wantTrailers', () => stream.sendTrailers(trailers));
    stream.pipe(upstream);
    upstream.pipe(stream);
  });
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  return {
    port: (front.address() as net.AddressInfo).port,
    refused: () => refused,
    close: () => {
      backend.close();
      front.close();
    },
  };
}

describe('a call whose stream the server refused (D378)', () => {
  async function throughFront(refusals: number) {
    const calls: string[] = [];
    const server = await startGrpcServer(
      (grpcServer) =>
        addService(
          grpcServer,
          InventoryService,
          {
            holdStock: async () => {
              calls.push('holdStock');
              return { eventId: 7n, eventUrl: 'held', lines: [] };
            },
          },
          pino({ level: 'silent' }),
        ),
      '127.0.0.1',
      0,
    );
    const front = await refusingFront(server.port, refusals);
    const client = createServiceClient(InventoryService, `127.0.0.1:${front.port}`);
    try {
      const outcome = await client.holdStock({ holdId: 'h', eventIdOrSlug: 'e', lines: [] }, ctx, { deadlineMs: 5_000 }).then(
        (value) => ({ answered: value.eventUrl }),
        (error: unknown) => ({ failed: error instanceof ServiceUnanswered ? { code: error.code, refused: error.refused } : String(error) }),
      );
      return { outcome, calls, refused: front.refused() };
    } finally {
      client.close();
      front.close();
      server.server.forceShutdown();
    }
  }

  it('sends a call with side effects again when both of grpc-js’s attempts were refused, and the service runs it once', async () => {
    // grpc-js retries a refused stream once by itself; the second refusal is ours to handle.
    expect(await throughFront(2)).toEqual({ outcome: { answered: 'held' }, calls: ['holdStock'], refused: 2 });
  }, 30_000);

  it('sends it once more only: a server that refuses every stream fails the call as refused, and never ran it', async () => {
    expect(await throughFront(100)).toEqual({ outcome: { failed: { code: 'internal_error', refused: true } }, calls: [], refused: 4 });
  }, 30_000);
});
