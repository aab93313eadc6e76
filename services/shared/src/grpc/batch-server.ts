/**
 * The server side of CallBatchService: each call of a batch runs through the
 * same handler as a call that came alone, concurrently with the others, and
 * answers in its own outcome, so one call's refusal fails only that call.
 * Each call gets a server span under the trace its caller sent.
 */
import { status as GrpcStatus } from '@grpc/grpc-js';
import { create, fromBinary, toBinary, type DescMessage, type MessageInitShape, type MessageShape } from '@bufbuild/protobuf';
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { Logger } from 'pino';
import { ApiErrorSchema, type BatchedCall, type BatchedOutcomeSchema, type CallBatchRequest, type CallBatchResponseSchema } from '../gen/partnerapi/common/v1/common_pb';
import { ApiError, grpcStatusForHttp } from '../errors';
import { CallShed, type CallGate } from './call-gate';
import { contextFromMessage, type RequestContext } from './context';
import type { GrpcServerMetrics } from './server-metrics';

/** One method a batch may call: what the server would run for it alone. */
export interface BatchableMethod {
  readonly service: string;
  readonly name: string;
  readonly input: DescMessage;
  readonly output: DescMessage;
  readonly handler: (request: MessageShape<DescMessage>, ctx: RequestContext) => Promise<MessageInitShape<DescMessage>>;
  /** False for a method that runs past the server's gate (see `addService`'s `ungated`). */
  readonly gated: boolean;
}

/** What any failure of a handler answers: its ApiError, or internal_error (logged) for anything else. */
export function asApiError(error: unknown, logger: Logger, method: string): ApiError {
  if (error instanceof ApiError) return error;
  logger.error({ err: error, method }, 'unhandled error in gRPC handler');
  return new ApiError('internal_error', 'An internal error occurred.');
}

export function apiErrorMessage(error: ApiError) {
  return create(ApiErrorSchema, { code: error.code, message: error.message, param: error.param ?? undefined });
}

const tracer = () => trace.getTracer('@partner-api/shared');

export class BatchDispatcher {
  private readonly methods = new Map<string, BatchableMethod>();

  constructor(
    private readonly logger: Logger,
    private readonly metrics: GrpcServerMetrics | undefined,
    private readonly gate: CallGate | undefined,
  ) {}

  /** `path` is the gRPC method path, `/package.Service/Method`. */
  add(path: string, method: BatchableMethod): void {
    this.methods.set(path, method);
  }

  async dispatch(request: CallBatchRequest): Promise<MessageInitShape<typeof CallBatchResponseSchema>> {
    return { outcomes: await Promise.all(request.calls.map((call) => this.run(call))) };
  }

  private async run(call: BatchedCall): Promise<MessageInitShape<typeof BatchedOutcomeSchema>> {
    const method = this.methods.get(call.method);
    if (!method) return this.failed(new ApiError('internal_error', 'An internal error occurred.'), call.method);
    const done = this.metrics?.start(method.service, method.name);
    const parent = propagation.extract(ROOT_CONTEXT, { traceparent: call.traceparent });
    // Named as grpc-js's instrumentation names a call that came alone.
    const span = tracer().startSpan(`grpc.${call.method.slice(1)}`, { kind: SpanKind.SERVER, attributes: { 'rpc.system': 'grpc', 'rpc.batched': true } }, parent);
    try {
      const ctx = contextFromMessage(call.context);
      const work = () => context.with(trace.setSpan(parent, span), () => method.handler(fromBinary(method.input, call.request), ctx));
      const response = await (this.gate && method.gated ? this.gate.run(ctx.deadline ?? Infinity, work) : work());
      done?.(GrpcStatus.OK);
      return { outcome: { case: 'response', value: toBinary(method.output, create(method.output, response)) } };
    } catch (error) {
      if (error instanceof CallShed) this.metrics?.shed(method.service, method.name, error.reason);
      const apiError = asApiError(error, this.logger, method.name);
      span.setStatus({ code: SpanStatusCode.ERROR, message: apiError.code });
      done?.(grpcStatusForHttp(apiError.httpStatus));
      return this.failed(apiError);
    } finally {
      span.end();
    }
  }

  private failed(error: ApiError, unknownMethod?: string): MessageInitShape<typeof BatchedOutcomeSchema> {
    if (unknownMethod !== undefined) this.logger.error({ method: unknownMethod }, 'batched call of a method this server does not serve');
    return { outcome: { case: 'error', value: apiErrorMessage(error) }, httpStatus: error.httpStatusOverride };
  }
}
