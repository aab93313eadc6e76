/**
 * Calls of one turn travel as one CallBatch and come back one by one: each
 * with its own answer, context, error and trace, and a call alone in its
 * turn as an ordinary call. A real grpc-js server and client on loopback.
 */
import { context, propagation, SpanKind, trace } from '@opentelemetry/api';
import { node } from '@opentelemetry/sdk-node';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { Registry } from 'prom-client';
import pino from 'pino';
import { ApiError } from '../errors';
import { InventoryService } from '../gen/partnerapi/inventory/v1/inventory_pb';
import { createServiceClient, type ServiceClient } from './client';
import { ServiceUnanswered } from './call-errors';
import type { RequestContext } from './context';
import { addService, startGrpcServer, type GrpcServerHandle } from './server';
import { GrpcServerMetrics } from './server-metrics';

const exporter = new InMemorySpanExporter();
const provider = new node.NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const logger = pino({ level: 'silent' });

let server: GrpcServerHandle;
let registry: Registry;
let client: ServiceClient<(typeof InventoryService)['method']>;
const seen: Array<{ holdId: string; ctx: RequestContext; traceId: string | undefined }> = [];

const ctx = (organisationId: number): RequestContext => ({ organisationId, mode: 'live', keyId: organisationId * 10, requestId: `req_${organisationId}` });

beforeAll(async () => {
  provider.register();
  registry = new Registry();
  server = await startGrpcServer(
    (grpcServer) =>
      addService(
        grpcServer,
        InventoryService,
        {
          holdStock: async (request, callCtx) => {
            seen.push({ holdId: request.holdId, ctx: callCtx, traceId: trace.getActiveSpan()?.spanContext().traceId });
            await new Promise((resolve) => setTimeout(resolve, 5));
            if (request.holdId.startsWith('refuse')) throw new ApiError('exceeds_availability', 'Only 3 left.', 'items[0].quantity', 422);
            if (request.holdId.startsWith('crash')) throw new Error('a bug');
            return { eventId: BigInt(callCtx.organisationId), eventUrl: `hold:${request.holdId}`, lines: [] };
          },
        },
        logger,
        new GrpcServerMetrics(registry),
      ),
    '127.0.0.1',
    0,
  );
  client = createServiceClient(InventoryService, `127.0.0.1:${server.port}`, { batched: ['holdStock'] });
});

afterAll(async () => {
  client.close();
  server.server.forceShutdown();
  await provider.shutdown();
  trace.disable();
  context.disable();
  propagation.disable();
});

beforeEach(() => {
  seen.length = 0;
  exporter.reset();
  registry.resetMetrics();
});

/** How many calls the server handled, by method, from its RED histogram. */
async function handled(): Promise<Record<string, number>> {
  const metric = (await registry.getMetricsAsJSON()).find((entry) => entry.name === 'grpc_server_handling_seconds')!;
  const counts: Record<string, number> = {};
  for (const value of metric.values as Array<{ metricName?: string; labels: Record<string, string>; value: number }>) {
    if (value.metricName !== 'grpc_server_handling_seconds_count') continue;
    const key = `${value.labels.grpc_method} ${value.labels.grpc_code}`;
    counts[key] = (counts[key] ?? 0) + value.value;
  }
  return counts;
}

const hold = (holdId: string, organisationId: number) => client.holdStock({ holdId, eventIdOrSlug: 'e', lines: [], ttlSeconds: 60 }, ctx(organisationId));

describe('batched calls', () => {
  it('send the calls of one turn as one batch, each answered with its own response and context', async () => {
    const answers = await Promise.all(Array.from({ length: 40 }, (_, index) => hold(`h${index}`, index + 1)));

    expect(answers.map((answer) => [answer.eventUrl, answer.eventId])).toEqual(Array.from({ length: 40 }, (_, index) => [`hold:h${index}`, BigInt(index + 1)]));
    // Each call's own context, with its own deadline (D442): the client's default, from when it was made.
    expect(seen.map((call) => [call.holdId, call.ctx])).toEqual(
      expect.arrayContaining(Array.from({ length: 40 }, (_, index) => [`h${index}`, { ...ctx(index + 1), deadline: expect.any(Number) }])),
    );
    for (const call of seen) expect(call.ctx.deadline! - Date.now()).toBeGreaterThan(5_000);
    expect(await handled()).toEqual({ 'CallBatch OK': 1, 'HoldStock OK': 40 });
  });

  it('fail only the calls that failed, with the error each raised', async () => {
    const outcomes = await Promise.allSettled([hold('ok-1', 1), hold('refuse-1', 1), hold('crash-1', 1), hold('ok-2', 2)]);

    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    const refused = (outcomes[1] as PromiseRejectedResult).reason as ApiError;
    expect([refused.code, refused.message, refused.param, refused.httpStatus]).toEqual(['exceeds_availability', 'Only 3 left.', 'items[0].quantity', 422]);
    const crashed = (outcomes[2] as PromiseRejectedResult).reason as ApiError;
    expect([crashed.code, crashed.message, crashed instanceof ServiceUnanswered]).toEqual(['internal_error', 'An internal error occurred.', false]);
    expect(await handled()).toEqual({ 'CallBatch OK': 1, 'HoldStock OK': 2, 'HoldStock FAILED_PRECONDITION': 1, 'HoldStock INTERNAL': 1 });
  });

  it('send a call alone in its turn as an ordinary call', async () => {
    await expect(hold('alone', 7)).resolves.toMatchObject({ eventUrl: 'hold:alone', eventId: 7n });
    expect(await handled()).toEqual({ 'HoldStock OK': 1 });
  });

  it("continue each caller's trace: a client span per call, the server's span its child", async () => {
    const tracer = provider.getTracer('test');
    const callers = [tracer.startSpan('checkout a'), tracer.startSpan('checkout b')];
    await Promise.all(callers.map((span, index) => context.with(trace.setSpan(context.active(), span), () => hold(`t${index}`, 1))));
    callers.forEach((span) => span.end());

    const spans = exporter.getFinishedSpans().filter((span) => span.name === 'grpc.partnerapi.inventory.v1.InventoryService/HoldStock');
    callers.forEach((caller) => {
      const clientSpan = spans.find((span) => span.kind === SpanKind.CLIENT && span.parentSpanContext?.spanId === caller.spanContext().spanId)!;
      expect(clientSpan).toBeDefined();
      const serverSpan = spans.find((span) => span.kind === SpanKind.SERVER && span.parentSpanContext?.spanId === clientSpan.spanContext().spanId);
      expect(serverSpan?.spanContext().traceId).toBe(caller.spanContext().traceId);
    });
    expect(seen.map((call) => call.traceId).sort()).toEqual(callers.map((span) => span.spanContext().traceId).sort());
  });

  it('fail every call of a batch that gets no answer as unanswered', async () => {
    const nowhere = createServiceClient(InventoryService, '127.0.0.1:1', { batched: ['holdStock'] });
    try {
      const outcomes = await Promise.allSettled(
        [1, 2, 3].map((index) => nowhere.holdStock({ holdId: `x${index}`, eventIdOrSlug: 'e', lines: [], ttlSeconds: 60 }, ctx(1), { deadlineMs: 1_000 })),
      );
      expect(outcomes.map((outcome) => outcome.status === 'rejected' && outcome.reason instanceof ServiceUnanswered)).toEqual([true, true, true]);
    } finally {
      nowhere.close();
    }
  });
});
