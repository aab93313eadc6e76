/**
 * Typed promise clients over grpc-js: every call carries the request context
 * and a deadline, and a failed call comes back as the ApiError the service
 * raised (or internal_error when the service could not be reached).
 */
import * as grpc from '@grpc/grpc-js';
import { create, type DescMethodUnary, type MessageInitShape, type MessageShape } from '@bufbuild/protobuf';
import type { GenService, GenServiceMethods } from '@bufbuild/protobuf/codegenv2';
import { MethodOptions_IdempotencyLevel } from '@bufbuild/protobuf/wkt';
import { CallBatchService, type CallBatchResponse } from '../gen/partnerapi/common/v1/common_pb';
import { CallCoalescer } from './batch-client';
import { apiErrorFromGrpc, ServiceUnanswered } from './call-errors';
import { contextToMetadata, type RequestContext } from './context';
import { grpcServiceDefinition } from './definition';

export type ServiceClient<M extends GenServiceMethods> = {
  [K in keyof M]: (
    request: MessageInitShape<M[K]['input']>,
    ctx: RequestContext,
    options?: { deadlineMs?: number },
  ) => Promise<MessageShape<M[K]['output']>>;
} & { close(): void };

const DEFAULT_DEADLINE_MS = 10_000;

/**
 * Every channel balances calls over all the addresses its target resolves
 * to (round_robin; grpc-js's default, pick_first, sends everything to one).
 * With `dns:///<headless service>:<port>` that is every ready pod; with a
 * plain host:port it is the one address, as before. A server's
 * max_connection_age (server.ts) makes the channel resolve again, so pods
 * added later get their share.
 *
 * A lost backend is tried again at least every second. grpc-js's default
 * backoff grows to two minutes, so a service back after a long outage
 * could stay unreachable for as long again, every call failing at once
 * meanwhile (D356). Calls made between two attempts wait for the next one
 * (see RECONNECT_WAIT_MS).
 */
export const GRPC_CHANNEL_OPTIONS: grpc.ChannelOptions = {
  'grpc.keepalive_time_ms': 30_000,
  'grpc.service_config': JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] }),
  'grpc.initial_reconnect_backoff_ms': 250,
  'grpc.max_reconnect_backoff_ms': 1_000,
};

/**
 * How long a call made while its channel has no backend (between two
 * connection attempts, as while the only pod of a service restarts) waits
 * for one before it is sent anyway and fails at once as unreachable
 * (D368). Longer than the longest gap between attempts, so a restart of a
 * second or less costs its callers time instead of errors; far shorter than
 * a deadline, so a real outage still answers within about a second and a half.
 */
export const RECONNECT_WAIT_MS = 1_500;

/**
 * Whether a method's proto declares it safe to run twice: free of side
 * effects (`option idempotency_level = NO_SIDE_EFFECTS`, the reads) or
 * idempotent (`IDEMPOTENT`: a second run changes nothing more). Such calls
 * may be sent again when their connection drops under them (D372, D392).
 */
function safeToRunTwice(method: DescMethodUnary): boolean {
  return method.idempotency === MethodOptions_IdempotencyLevel.NO_SIDE_EFFECTS || method.idempotency === MethodOptions_IdempotencyLevel.IDEMPOTENT;
}

/** A call lost on its way: its connection failed before an answer came (the server may or may not have run it). */
function lostInFlight(error: unknown): boolean {
  return error instanceof ServiceUnanswered && error.grpcCode === grpc.status.UNAVAILABLE;
}

/** Resolves true when the channel has a ready backend, or false at `until` (ms since the epoch) without one; an idle channel is asked to connect. */
async function backendOrGiveUp(channel: ReturnType<grpc.Client['getChannel']>, until: number): Promise<boolean> {
  for (;;) {
    const state = channel.getConnectivityState(true);
    if (state === grpc.connectivityState.READY) return true;
    if (state === grpc.connectivityState.SHUTDOWN || Date.now() >= until) return false;
    await new Promise<void>((resolve) => channel.watchConnectivityState(state, until, () => resolve()));
  }
}

type Invoke = (request: unknown, metadata: grpc.Metadata, options: grpc.CallOptions, callback: (error: grpc.ServiceError | null, response?: unknown) => void) => void;

function invoker(client: grpc.Client, localName: string): Invoke {
  const method = (client as unknown as Record<string, Invoke>)[localName]!;
  return method.bind(client);
}

export interface ServiceClientOptions<M extends GenServiceMethods> {
  interceptors?: grpc.Interceptor[];
  /**
   * Methods whose calls made in one turn of the event loop travel as one
   * CallBatch (batch-client.ts): the calls a process makes for many
   * concurrent requests at once, such as holds during an on-sale.
   */
  batched?: ReadonlyArray<keyof M & string>;
}

/**
 * `address` is any grpc-js target: `host:port`, `dns:///name:port` (every
 * address the name resolves to), or `ipv4:127.0.0.1:p1,127.0.0.1:p2`.
 */
export function createServiceClient<M extends GenServiceMethods>(
  service: GenService<M>,
  address: string,
  options: ServiceClientOptions<M> = {},
): ServiceClient<M> {
  const Constructor = grpc.makeGenericClientConstructor(grpcServiceDefinition(service), service.typeName);
  const client = new Constructor(address, grpc.credentials.createInsecure(), {
    ...GRPC_CHANNEL_OPTIONS,
    ...(options.interceptors ? { interceptors: options.interceptors } : {}),
  });
  const sendAlone = (method: DescMethodUnary, request: unknown, ctx: RequestContext, deadline: Date) =>
    new Promise((resolve, reject) => {
      invoker(client, method.localName)(create(method.input, request as never), contextToMetadata(ctx), { deadline }, (error, response) =>
        error ? reject(apiErrorFromGrpc(error)) : resolve(response),
      );
    });
  const batched = new Set<string>(options.batched ?? []);
  const coalescer = batched.size > 0 ? batchCoalescer(client, sendAlone) : undefined;

  const channel = client.getChannel();
  const methods: Record<string, unknown> = {};
  for (const method of service.methods as DescMethodUnary[]) {
    const send = coalescer && batched.has(method.localName) ? coalescer.call.bind(coalescer) : sendAlone;
    const waitForBackend = (deadline: Date) => backendOrGiveUp(channel, Math.min(deadline.getTime(), Date.now() + RECONNECT_WAIT_MS));
    const sendWhenReady = (request: unknown, ctx: RequestContext, deadline: Date): Promise<unknown> =>
      // The usual case costs one field read (no connect attempt asked for); only a channel without a ready backend makes the call wait.
      channel.getConnectivityState(false) === grpc.connectivityState.READY
        ? send(method, request, ctx, deadline)
        : waitForBackend(deadline).then(() => send(method, request, ctx, deadline));
    const sendSafe = async (request: unknown, ctx: RequestContext, deadline: Date): Promise<unknown> => {
      const hadBackend = channel.getConnectivityState(false) === grpc.connectivityState.READY || (await waitForBackend(deadline));
      try {
        return await send(method, request, ctx, deadline);
      } catch (error) {
        // Lost on its way (its backend killed): sent once more, within its deadline, once a backend is ready. Not a call that
        // found no backend at all: that one has had its wait (D368).
        if (!hadBackend || !lostInFlight(error) || Date.now() >= deadline.getTime()) throw error;
        return sendWhenReady(request, ctx, deadline);
      }
    };
    // Refused before any handler saw it (D378): the call did not happen, so any method may be sent once more.
    const sendWrite = (request: unknown, ctx: RequestContext, deadline: Date): Promise<unknown> =>
      sendWhenReady(request, ctx, deadline).catch((error: unknown) => {
        if (!(error instanceof ServiceUnanswered && error.refused) || Date.now() >= deadline.getTime()) throw error;
        return sendWhenReady(request, ctx, deadline);
      });
    const call = safeToRunTwice(method) ? sendSafe : sendWrite;
    // The call's own time, never past the request it serves (D442).
    methods[method.localName] = (request: unknown, ctx: RequestContext, callOptions?: { deadlineMs?: number }) =>
      call(request, ctx, new Date(Math.min(Date.now() + (callOptions?.deadlineMs ?? DEFAULT_DEADLINE_MS), ctx.deadline ?? Infinity)));
  }
  methods.close = () => client.close();
  return methods as ServiceClient<M>;
}

/** Batches travel on the client's own channel, so they are balanced over the same servers. */
function batchCoalescer(client: grpc.Client, sendAlone: ConstructorParameters<typeof CallCoalescer>[0]): CallCoalescer {
  const Constructor = grpc.makeGenericClientConstructor(grpcServiceDefinition(CallBatchService), CallBatchService.typeName);
  const batchClient = new Constructor('unused', grpc.credentials.createInsecure(), { channelOverride: client.getChannel() });
  const callBatch = invoker(batchClient, 'callBatch');
  return new CallCoalescer(sendAlone, (request, metadata, deadline, callback) =>
    callBatch(request, metadata, { deadline }, (error, response) => callback(error, response as CallBatchResponse | undefined)),
  );
}
