/**
 * Trace context through the outbox and Kafka, kept by hand rather than by
 * the kafkajs instrumentation: that one starts every message's send span in
 * the context of the `send` call, and the relay sends rows written by many
 * requests in one call, so each message would carry the relay loop's
 * context instead of its own. Here a row's send span is a child of the
 * context stored with the row (outbox/writer.ts), a consumed message's
 * process span a child of its send span, and work done later for the
 * message (a webhook delivery) a child of a context stored with it: one
 * trace from the request that changed state to what consumers did with it.
 *
 * Without a collector nothing is sampled: the spans are not recorded, but
 * the trace id still travels, so logs on both sides share it.
 */
import { context, isSpanContextValid, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Span } from '@opentelemetry/api';
import type { IHeaders } from 'kafkajs';

/** A trace context written out as W3C headers (`traceparent`, `tracestate`), as stored in a row or sent in a message. */
export type TraceCarrier = Record<string, string>;

const tracer = () => trace.getTracer('@partner-api/shared');

/** The active context as headers, to store with work that continues elsewhere or later. */
export function currentTraceCarrier(): TraceCarrier {
  const carrier: TraceCarrier = {};
  propagation.inject(context.active(), carrier);
  return carrier;
}

function carrierOf(span: Span): TraceCarrier {
  const carrier: TraceCarrier = {};
  // A span of no trace (nothing recording, no parent) writes no header: skip the context and propagators per message.
  if (!isSpanContextValid(span.spanContext())) return carrier;
  propagation.inject(trace.setSpan(ROOT_CONTEXT, span), carrier);
  return carrier;
}

function fail(span: Span, error: unknown): void {
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
}

/** Kafka header values (Buffers, strings or lists of them) as text. */
export function headerText(headers: IHeaders | undefined): TraceCarrier {
  const text: TraceCarrier = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    const first = Array.isArray(value) ? value[0] : value;
    if (first !== undefined) text[name] = first.toString();
  }
  return text;
}

interface TracedMessage {
  /** The context the message continues (stored with an outbox row, or read from a message's headers). */
  carrier: TraceCarrier | null | undefined;
  attributes?: Attributes;
}

/**
 * Runs one call that handles several messages with a span per message, each
 * a child of that message's own context. `work` gets each span's context as
 * headers, in the messages' order; every span ends when `work` settles.
 */
async function withMessageSpans<T>(name: string, kind: SpanKind, operation: string, topic: string, messages: TracedMessage[], work: (carriers: TraceCarrier[]) => Promise<T>): Promise<T> {
  const spans = messages.map((message) =>
    tracer().startSpan(
      name,
      {
        kind,
        attributes: { 'messaging.system': 'kafka', 'messaging.destination.name': topic, 'messaging.operation.type': operation, ...message.attributes },
      },
      propagation.extract(ROOT_CONTEXT, message.carrier ?? {}),
    ),
  );
  try {
    return await work(spans.map(carrierOf));
  } catch (error) {
    spans.forEach((span) => fail(span, error));
    throw error;
  } finally {
    spans.forEach((span) => span.end());
  }
}

/** Sends messages to `topic` with a `send` span for each under the context it carries; `send` gets the headers to send each with. */
export function withSendSpans<T>(topic: string, messages: TracedMessage[], send: (carriers: TraceCarrier[]) => Promise<T>): Promise<T> {
  return withMessageSpans(`send ${topic}`, SpanKind.PRODUCER, 'send', topic, messages, send);
}

/** Handles consumed messages with a `process` span for each under its sender's; `handle` gets each span's context to keep. */
export function withProcessSpans<T>(topic: string, messages: TracedMessage[], handle: (carriers: TraceCarrier[]) => Promise<T>): Promise<T> {
  return withMessageSpans(`process ${topic}`, SpanKind.CONSUMER, 'process', topic, messages, handle);
}

/** What work in a span may say about its outcome besides throwing. */
export interface SpanOutcome {
  failed(message: string): void;
}

/** The outcome of work with no span to mark. */
const UNTRACED_OUTCOME: SpanOutcome = { failed: () => undefined };

/**
 * Runs `work` in a span that continues a stored context (null: a new
 * trace), with the span active so what `work` calls (an HTTP request, a
 * query) is part of it. A throw, or `failed`, marks the span failed.
 */
export async function inStoredContext<T>(carrier: TraceCarrier | null | undefined, name: string, attributes: Attributes, work: (span: SpanOutcome) => Promise<T>): Promise<T> {
  const parent = propagation.extract(ROOT_CONTEXT, carrier ?? {});
  const span = tracer().startSpan(name, { attributes }, parent);
  // No trace to carry (none stored, none recorded here) and no other context to leave: making the
  // span's context active would change nothing a callee can see, so the work runs as it is (as D349
  // does for incoming requests). This is every delivery of an event whose request sent no trace.
  if (!isSpanContextValid(span.spanContext()) && context.active() === ROOT_CONTEXT) return work(UNTRACED_OUTCOME);
  const outcome: SpanOutcome = { failed: (message) => span.setStatus({ code: SpanStatusCode.ERROR, message }) };
  try {
    return await context.with(trace.setSpan(parent, span), () => work(outcome));
  } catch (error) {
    fail(span, error);
    throw error;
  } finally {
    span.end();
  }
}
