/**
 * Typed promise clients over grpc-js: every call carries the request context
 * and a deadline, and a failed call comes back as the ApiError the service
 * raised (or internal_error when the service could not be reached).
 */
import * as grpc from '@grpc/grpc-js';
import { create, fromBinary, type MessageInitShape, type MessageShape } from '@bufbuild/protobuf';
import type { GenService, GenServiceMethods } from '@bufbuild/protobuf/codegenv2';
import { ApiErrorSchema } from '../gen/partnerapi/common/v1/common_pb';
import { ApiError, isApiErrorCode } from '../errors';
import { contextToMetadata, type RequestContext } from './context';
import { grpcServiceDefinition } from './definition';
import { API_ERROR_METADATA_KEY } from './server';

export type ServiceClient<M extends GenServiceMethods> = {
  [K in keyof M]: (
    request: MessageInitShape<M[K]['input']>,
    ctx: RequestContext,
    options?: { deadlineMs?: number },
  ) => Promise<MessageShape<M[K]['output']>>;
} & { close(): void };

const DEFAULT_DEADLINE_MS = 10_000;

/**
 * A call that came back without the service's answer: the service was down,
 * the connection dropped or the deadline passed. It may or may not have
 * happened, so callers whose retries are safe answer with their own code
 * (a checkout answers `hold_failed`); anyone else sees `internal_error`.
 */
export class ServiceUnanswered extends ApiError {
  constructor(readonly grpcCode: grpc.status) {
    super('internal_error', 'An internal error occurred.');
  }
}

/**
 * Every channel balances calls over all the addresses its target resolves
 * to (round_robin; grpc-js's default, pick_first, sends everything to one).
 * With `dns:///<headless service>:<port>` that is every ready pod; with a
 * plain host:port it is the one address, as before. A server's
 * max_connection_age (server.ts) makes the channel resolve again, so pods
 * added later get their share.
 */
export const GRPC_CHANNEL_OPTIONS: grpc.ChannelOptions = {
  'grpc.keepalive_time_ms': 30_000,
  'grpc.service_config': JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] }),
};

/** Rebuilds the service's ApiError from a failed call. */
export function apiErrorFromGrpc(error: grpc.ServiceError): ApiError {
  const raw = error.metadata?.get(API_ERROR_METADATA_KEY)[0];
  if (raw instanceof Buffer) {
    const detail = fromBinary(ApiErrorSchema, raw);
    if (isApiErrorCode(detail.code)) {
      const override = error.metadata.get('partner-api-http-status')[0];
      return new ApiError(
        detail.code,
        detail.message,
        detail.param ?? null,
        typeof override === 'string' ? Number(override) : undefined,
      );
    }
  }
  return new ServiceUnanswered(error.code);
}

/**
 * `address` is any grpc-js target: `host:port`, `dns:///name:port` (every
 * address the name resolves to), or `ipv4:127.0.0.1:p1,127.0.0.1:p2`.
 */
export function createServiceClient<M extends GenServiceMethods>(
  service: GenService<M>,
  address: string,
  options: { interceptors?: grpc.Interceptor[] } = {},
): ServiceClient<M> {
  const Constructor = grpc.makeGenericClientConstructor(grpcServiceDefinition(service), service.typeName);
  const client = new Constructor(address, grpc.credentials.createInsecure(), {
    ...GRPC_CHANNEL_OPTIONS,
    ...(options.interceptors ? { interceptors: options.interceptors } : {}),
  });
  const methods: Record<string, unknown> = {};
  for (const method of service.methods) {
    const invoke = (client as unknown as Record<string, grpc.requestCallback<unknown> & ((...args: unknown[]) => void)>)[
      method.localName
    ];
    methods[method.localName] = (
      request: MessageInitShape<typeof method.input>,
      ctx: RequestContext,
      options?: { deadlineMs?: number },
    ) =>
      new Promise((resolve, reject) => {
        const deadline = new Date(Date.now() + (options?.deadlineMs ?? DEFAULT_DEADLINE_MS));
        invoke!.call(
          client,
          create(method.input, request as never),
          contextToMetadata(ctx),
          { deadline },
          (error: grpc.ServiceError | null, response: unknown) =>
            error ? reject(apiErrorFromGrpc(error)) : resolve(response),
        );
      });
  }
  methods.close = () => client.close();
  return methods as ServiceClient<M>;
}
