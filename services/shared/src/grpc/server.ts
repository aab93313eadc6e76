/**
 * A gRPC server for one service: typed handlers receive the decoded request
 * and the caller's request context; ApiErrors cross as a status plus the
 * ApiError detail in trailing metadata.
 */
import * as grpc from '@grpc/grpc-js';
import { create, toBinary, type MessageInitShape, type MessageShape } from '@bufbuild/protobuf';
import type { GenService, GenServiceMethods } from '@bufbuild/protobuf/codegenv2';
import type { Logger } from 'pino';
import { ApiErrorSchema, CallBatchService } from '../gen/partnerapi/common/v1/common_pb';
import { grpcStatusForHttp } from '../errors';
import { apiErrorMessage, asApiError, BatchDispatcher, type BatchableMethod } from './batch-server';
import { API_ERROR_METADATA_KEY, HTTP_STATUS_METADATA_KEY } from './call-errors';
import { CallShed, type CallGate } from './call-gate';
import { contextFromMetadata, type RequestContext } from './context';
import { grpcServiceDefinition } from './definition';
import type { GrpcServerMetrics } from './server-metrics';

export { API_ERROR_METADATA_KEY } from './call-errors';

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
  const apiError = asApiError(error, logger, method);
  const metadata = new grpc.Metadata();
  metadata.set(API_ERROR_METADATA_KEY, Buffer.from(toBinary(ApiErrorSchema, apiErrorMessage(apiError))));
  if (apiError.httpStatusOverride !== undefined) metadata.set(HTTP_STATUS_METADATA_KEY, String(apiError.httpStatus));
  return Object.assign(new Error(apiError.message), {
    code: grpcStatusForHttp(apiError.httpStatus),
    details: apiError.message,
    metadata,
  });
}

const batchDispatchers = new WeakMap<grpc.Server, BatchDispatcher>();

/**
 * The server's CallBatchService, added with its first service: every method
 * of every service it serves can also be called in a batch.
 */
function batchDispatcher(server: grpc.Server, logger: Logger, metrics: GrpcServerMetrics | undefined, gate: CallGate | undefined): BatchDispatcher {
  let dispatcher = batchDispatchers.get(server);
  if (!dispatcher) {
    const created = new BatchDispatcher(logger, metrics, gate);
    batchDispatchers.set(server, created);
    // The batch itself takes no slot of the gate: each call in it takes its own.
    addService(server, CallBatchService, { callBatch: (request) => created.dispatch(request) }, logger, metrics);
    dispatcher = created;
  }
  return dispatcher;
}

export function addService<M extends GenServiceMethods>(
  server: grpc.Server,
  service: GenService<M>,
  handlers: Partial<ServiceHandlers<M>>,
  logger: Logger,
  metrics?: GrpcServerMetrics,
  /** Bounds the calls the server runs at once (D443); every method of the service goes through it but `ungated`. */
  gate?: CallGate,
  /**
   * Methods that finish or give back work already admitted (a release, an
   * abandon, a commit): they run past the gate, because refusing them under
   * load keeps stock held for buyers who have gone (D449).
   */
  ungated: readonly (keyof M & string)[] = [],
): void {
  const implementation: grpc.UntypedServiceImplementation = {};
  const batches = (service as GenService<GenServiceMethods>) === CallBatchService ? undefined : batchDispatcher(server, logger, metrics, gate);
  for (const method of service.methods) {
    const handler = handlers[method.localName as keyof M];
    // Methods a service does not implement yet answer UNIMPLEMENTED (grpc-js default).
    if (!handler) continue;
    const methodGate = ungated.includes(method.localName as keyof M & string) ? undefined : gate;
    batches?.add(`/${service.typeName}/${method.name}`, {
      service: service.typeName,
      name: method.name,
      input: method.input,
      output: method.output,
      handler: handler as unknown as BatchableMethod['handler'],
      gated: methodGate !== undefined,
    });
    implementation[method.localName] = (
      call: grpc.ServerUnaryCall<MessageShape<typeof method.input>, unknown>,
      callback: grpc.sendUnaryData<unknown>,
    ) => {
      const done = metrics?.start(service.typeName, method.name);
      void (async () => {
        try {
          const deadline = Number(call.getDeadline());
          const ctx = contextFromMetadata(call.metadata, deadline);
          const run = () => handler(call.request as never, ctx);
          const result = await (methodGate ? methodGate.run(deadline, run) : run());
          callback(null, create(method.output, result as never));
          done?.(grpc.status.OK);
        } catch (error) {
          if (error instanceof CallShed) metrics?.shed(service.typeName, method.name, error.reason);
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
