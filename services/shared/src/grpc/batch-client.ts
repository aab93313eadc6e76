/**
 * Calls made in one turn of the event loop, sent as one CallBatch.
 *
 * Under an on-sale a process makes the same call for many buyers at once
 * (orders asks inventory for a hold per checkout). Each call alone costs an
 * HTTP/2 stream, its headers and grpc-js's call machinery on both sides,
 * which on the checkout path outweighed the work of the call itself. The
 * coalescer queues the calls of one turn and sends them together when the
 * turn ends; a call alone in its turn goes as an ordinary call, so a quiet
 * service pays nothing extra. Each call keeps its own context, trace and
 * outcome; a batch that gets no answer fails each of its calls as
 * unanswered, exactly as each would have failed alone.
 */
import type * as grpc from '@grpc/grpc-js';
import { Metadata, status as GrpcStatus } from '@grpc/grpc-js';
import { create, fromBinary, toBinary, type DescMethodUnary } from '@bufbuild/protobuf';
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context } from '@opentelemetry/api';
import { CallBatchRequestSchema, type BatchedOutcome, type CallBatchRequest, type CallBatchResponse } from '../gen/partnerapi/common/v1/common_pb';
import { apiErrorFromGrpc, apiErrorFromMessage, ServiceUnanswered } from './call-errors';
import { contextToMessage, contextToMetadata, type RequestContext } from './context';

/** Sends one call alone (the client's ordinary path). */
export type SendAlone = (method: DescMethodUnary, request: unknown, ctx: RequestContext, deadline: Date) => Promise<unknown>;
/** Sends a CallBatch request on the client's channel. */
export type SendBatch = (request: CallBatchRequest, metadata: Metadata, deadline: Date, callback: (error: grpc.ServiceError | null, response?: CallBatchResponse) => void) => void;

interface QueuedCall {
  readonly method: DescMethodUnary;
  readonly request: unknown;
  readonly ctx: RequestContext;
  readonly deadline: Date;
  /** The caller's trace context when it made the call. */
  readonly caller: Context;
  resolve(response: unknown): void;
  reject(error: unknown): void;
}

/** More calls than this in one turn go as several batches. */
export const MAX_BATCH_CALLS = 256;

const tracer = () => trace.getTracer('@partner-api/shared');

export class CallCoalescer {
  private queued: QueuedCall[] = [];

  constructor(
    private readonly sendAlone: SendAlone,
    private readonly sendBatch: SendBatch,
  ) {}

  call(method: DescMethodUnary, request: unknown, ctx: RequestContext, deadline: Date): Promise<unknown> {
    return new Promise((resolve, reject) => {
      if (this.queued.length === 0) setImmediate(() => this.flush());
      this.queued.push({ method, request, ctx, deadline, caller: context.active(), resolve, reject });
    });
  }

  private flush(): void {
    const queued = this.queued;
    this.queued = [];
    if (queued.length === 1) {
      const [only] = queued as [QueuedCall];
      context.with(only.caller, () => this.sendAlone(only.method, only.request, only.ctx, only.deadline)).then(only.resolve, only.reject);
      return;
    }
    for (let start = 0; start < queued.length; start += MAX_BATCH_CALLS) this.send(queued.slice(start, start + MAX_BATCH_CALLS));
  }

  private send(calls: QueuedCall[]): void {
    // A client span per call, so the trace of each caller reads as if its call had gone alone.
    const spans = calls.map((call) =>
      tracer().startSpan(`grpc.${call.method.parent.typeName}/${call.method.name}`, { kind: SpanKind.CLIENT, attributes: { 'rpc.system': 'grpc', 'rpc.batched': true } }, call.caller),
    );
    const request = create(CallBatchRequestSchema, {
      calls: calls.map((call, index) => {
        const carrier: Record<string, string> = {};
        propagation.inject(trace.setSpan(call.caller, spans[index]!), carrier);
        return {
          method: `/${call.method.parent.typeName}/${call.method.name}`,
          request: toBinary(call.method.input, create(call.method.input, call.request as never)),
          // Each call's own deadline: the server starts none whose caller has stopped waiting (D442).
          context: { ...contextToMessage(call.ctx), deadlineUnixMs: BigInt(call.deadline.getTime()) },
          traceparent: carrier.traceparent ?? '',
        };
      }),
    });
    // The batch's own call belongs to no caller's trace; it travels under the first caller's context, for the server's logs.
    // It lasts as long as its longest call: one call near its deadline must not fail the others with it.
    const deadline = new Date(Math.max(...calls.map((call) => call.deadline.getTime())));
    context.with(ROOT_CONTEXT, () =>
      this.sendBatch(request, contextToMetadata(calls[0]!.ctx, new Metadata()), deadline, (error, response) => {
        calls.forEach((call, index) => {
          const span = spans[index]!;
          try {
            if (error || !response || response.outcomes.length !== calls.length) {
              throw error ? apiErrorFromGrpc(error) : new ServiceUnanswered(GrpcStatus.INTERNAL);
            }
            call.resolve(decodeOutcome(call.method, response.outcomes[index]!));
          } catch (failure) {
            span.setStatus({ code: SpanStatusCode.ERROR });
            call.reject(failure);
          } finally {
            span.end();
          }
        });
      }),
    );
  }
}

function decodeOutcome(method: DescMethodUnary, outcome: BatchedOutcome): unknown {
  switch (outcome.outcome.case) {
    case 'response':
      return fromBinary(method.output, outcome.outcome.value);
    case 'error':
      throw apiErrorFromMessage(outcome.outcome.value, outcome.httpStatus) ?? new ServiceUnanswered(GrpcStatus.INTERNAL);
    default:
      throw new ServiceUnanswered(GrpcStatus.INTERNAL);
  }
}
