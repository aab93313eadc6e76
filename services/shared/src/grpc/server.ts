/**
 * A gRPC server for one service: typed handlers receive the decoded request
 * and the caller's request context; ApiErrors cross as a status plus the
 * ApiError detail in trailing metadata.
 */
import * as grpc from '@grpc/grpc-js';
import { create, toBinary, type MessageInitShape, type MessageShape } from '@bufbuild/protobuf';
import type { GenService, GenServiceMethods } from '@bufbuild/protobuf/codegenv2';
import type { Logger } from 'pino';
import { ApiErrorSchema } from '../gen/partnerapi/common/v1/common_pb';
import { ApiError, grpcStatusForHttp } from '../errors';
import { contextFromMetadata, type RequestContext } from './context';
import { grpcServiceDefinition } from './definition';
import type { GrpcServerMetrics } from './server-metrics';

export const API_ERROR_METADATA_KEY = 'partner-api-error-bin';

export type ServiceHandlers<M extends GenServiceMethods> = {
  [K in keyof M]: (
    request: MessageShape<M[K]['input']>,
    ctx: RequestContext,
  ) => Promise<MessageInitShape<M[K]['output']>>;
};

export interface GrpcServerHandle {
  readonly server: grpc.Server;
  readonly port: number;
  /** Stops accepting calls and waits for in-flight ones (bounded by the caller's timer). */
  drain(): Promise<void>;
}

function toServiceError(error: unknown, logger: Logger, method: string): grpc.ServiceError {
  const apiError =
    error instanceof ApiError ? error : new ApiError('internal_error', 'An internal error occurred.');
  if (!(error instanceof ApiError)) logger.error({ err: error, method }, 'unhandled error in gRPC handler');
  const metadata = new grpc.Metadata();
  const detail = create(ApiErrorSchema, {
    code: apiError.code,
    message: apiError.message,
    param: apiError.param ?? undefined,
  });
  metadata.set(API_ERROR_METADATA_KEY, Buffer.from(toBinary(ApiErrorSchema, detail)));
  if (apiError.httpStatusOverride !== undefined) metadata.set('partner-api-http-status', String(apiError.httpStatus));
  return Object.assign(new Error(apiError.message), {
    code: grpcStatusForHttp(apiError.httpStatus),
    details: apiError.message,
    metadata,
  });
}

export function addService<M extends GenServiceMethods>(
  server: grpc.Server,
  service: GenService<M>,
  handlers: Partial<ServiceHandlers<M>>,
  logger: Logger,
  metrics?: GrpcServerMetrics,
): void {
  const implementation: grpc.UntypedServiceImplementation = {};
  for (const method of service.methods) {
    const handler = handlers[method.localName as keyof M];
    // Methods a service does not implement yet answer UNIMPLEMENTED (grpc-js default).
    if (!handler) continue;
    implementation[method.localName] = (
      call: grpc.ServerUnaryCall<MessageShape<typeof method.input>, unknown>,
      callback: grpc.sendUnaryData<unknown>,
    ) => {
      const done = metrics?.start(service.typeName, method.name);
      void (async () => {
        try {
          const ctx = contextFromMetadata(call.metadata);
          const result = await handler(call.request as never, ctx);
          callback(null, create(method.output, result as never));
          done?.(grpc.status.OK);
        } catch (error) {
          const serviceError = toServiceError(error, logger, method.name);
          callback(serviceError);
          done?.(serviceError.code);
        }
      })();
    };
  }
  server.addService(grpcServiceDefinition(service), implementation);
}

export interface GrpcServerOptions {
  /**
   * Connections older than this (grpc-js adds up to 10% jitter) are sent
   * GOAWAY, so clients resolve their target again and spread over pods added
   * since they connected. 0 keeps connections for ever.
   */
  maxConnectionAgeMs?: number;
  /** How long calls in flight on such a connection may still take before it is closed. */
  maxConnectionAgeGraceMs?: number;
}

export async function startGrpcServer(
  register: (server: grpc.Server) => void,
  host: string,
  port: number,
  options: GrpcServerOptions = {},
): Promise<GrpcServerHandle> {
  const server = new grpc.Server({
    'grpc.max_receive_message_length': 4 * 1024 * 1024,
    ...(options.maxConnectionAgeMs ? { 'grpc.max_connection_age_ms': options.maxConnectionAgeMs } : {}),
    ...(options.maxConnectionAgeMs && options.maxConnectionAgeGraceMs !== undefined
      ? { 'grpc.max_connection_age_grace_ms': options.maxConnectionAgeGraceMs }
      : {}),
  });
  register(server);
  const boundPort = await new Promise<number>((resolve, reject) => {
    server.bindAsync(`${host}:${port}`, grpc.ServerCredentials.createInsecure(), (error, actual) =>
      error ? reject(error) : resolve(actual),
    );
  });
  return {
    server,
    port: boundPort,
    drain: () => new Promise<void>((resolve) => server.tryShutdown(() => resolve())),
  };
}
