import { context, propagation, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { node } from '@opentelemetry/sdk-node';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { currentTraceCarrier, headerText, inStoredContext, withProcessSpans, withSendSpans } from './messaging';

const exporter = new InMemorySpanExporter();
const provider = new node.NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

// Registers the provider, an async context manager and the W3C propagators, as the SDK does.
beforeAll(() => provider.register());

afterAll(async () => {
  await provider.shutdown();
  trace.disable();
  context.disable();
  propagation.disable();
});

beforeEach(() => exporter.reset());

/** The stored context of a span in a request that wrote an outbox row. */
function requestCarrier(): { traceId: string; spanId: string; carrier: Record<string, string> } {
  const span = provider.getTracer('test').startSpan('request');
  const carrier = context.with(trace.setSpan(context.active(), span), currentTraceCarrier);
  span.end();
  return { traceId: span.spanContext().traceId, spanId: span.spanContext().spanId, carrier };
}

const finished = (name: string) => exporter.getFinishedSpans().filter((span) => span.name === name);

describe('send spans', () => {
  it("start each message's span under its own stored context, and hand that span's context on", async () => {
    const [first, second] = [requestCarrier(), requestCarrier()];
    const sent = await withSendSpans('topic', [{ carrier: first.carrier }, { carrier: second.carrier }], async (carriers) => carriers);

    const spans = finished('send topic');
    expect(spans.map((span) => [span.spanContext().traceId, span.parentSpanContext?.spanId])).toEqual([
      [first.traceId, first.spanId],
      [second.traceId, second.spanId],
    ]);
    expect(sent).toEqual(spans.map((span) => ({ traceparent: `00-${span.spanContext().traceId}-${span.spanContext().spanId}-01` })));
  });

  it('start a new trace for a row stored without a context, and fail every span when the send fails', async () => {
    await expect(withSendSpans('topic', [{ carrier: {} }], () => Promise.reject(new Error('broker gone')))).rejects.toThrow('broker gone');
    const [span] = finished('send topic');
    expect(span!.parentSpanContext).toBeUndefined();
    expect(span!.status).toMatchObject({ code: 2, message: 'broker gone' });
  });
});

describe('process spans and stored contexts', () => {
  it('continue a message from its Kafka headers, and later work from the context kept with it', async () => {
    const origin = requestCarrier();
    const [sent] = await withSendSpans('topic', [{ carrier: origin.carrier }], async (carriers) => carriers);
    const headers = headerText({ traceparent: Buffer.from(sent!.traceparent!), 'event-id': 'evt_1' });
    const [kept] = await withProcessSpans('topic', [{ carrier: headers }], async (carriers) => carriers);
    const activeInside = await inStoredContext(kept, 'deliver order.completed', {}, async (outcome) => {
      outcome.failed('answered 500');
      return trace.getActiveSpan()?.spanContext().spanId;
    });

    const [send] = finished('send topic');
    const [processed] = finished('process topic');
    const [deliver] = finished('deliver order.completed');
    expect(processed!.parentSpanContext?.spanId).toBe(send!.spanContext().spanId);
    expect(deliver!.parentSpanContext?.spanId).toBe(processed!.spanContext().spanId);
    expect([send, processed, deliver].map((span) => span!.spanContext().traceId)).toEqual([origin.traceId, origin.traceId, origin.traceId]);
    expect(activeInside).toBe(deliver!.spanContext().spanId);
    expect(deliver!.status).toMatchObject({ code: 2, message: 'answered 500' });
  });

  it('start a new trace for work stored without a context while a tracer records', async () => {
    const activeInside = await inStoredContext({}, 'deliver order.completed', {}, async () => trace.getActiveSpan()?.spanContext().spanId);
    const [deliver] = finished('deliver order.completed');
    expect(deliver!.parentSpanContext).toBeUndefined();
    expect(activeInside).toBe(deliver!.spanContext().spanId);
  });

  describe('with no tracer recording (no collector)', () => {
    beforeEach(() => trace.disable());
    afterEach(() => trace.setGlobalTracerProvider(provider));

    it('still carry a stored trace into the work, for its logs and calls', async () => {
      const origin = requestCarrier();
      const inside = await inStoredContext(origin.carrier, 'deliver order.completed', {}, async () => trace.getActiveSpan()?.spanContext().traceId);
      expect(inside).toBe(origin.traceId);
    });

    it("hand on a message's trace, and nothing for a message that carries none", async () => {
      const origin = requestCarrier();
      const carriers = await withProcessSpans('topic', [{ carrier: origin.carrier }, { carrier: {} }], async (kept) => kept);
      expect(carriers[0]!.traceparent).toContain(origin.traceId);
      expect(carriers[1]).toEqual({});
    });

    it('run work stored without a trace as it is, in the root context, its failure a no-op', async () => {
      const inside = await inStoredContext({}, 'deliver order.completed', {}, async (outcome) => {
        outcome.failed('answered 500');
        return { active: context.active(), span: trace.getActiveSpan() };
      });
      expect(inside.active).toBe(ROOT_CONTEXT);
      expect(inside.span).toBeUndefined();
      expect(exporter.getFinishedSpans()).toHaveLength(0);
    });
  });
});
