/**
 * Telemetry without a collector: trace context carried between processes,
 * nothing recorded.
 *
 * The OpenTelemetry Node SDK with the auto-instrumentations loads some forty
 * instrumentation packages, the OTLP exporters and the configuration
 * schema's validator whether or not anything is exported: about 20 MB of
 * every service's live heap, which every full garbage collection has to
 * mark again (under an on-sale, every few seconds, with every request in
 * flight waiting; docs/benchmarks.md). Without a collector only this is
 * needed, and it is what the SDK sets up without an exporter: the
 * AsyncLocalStorage context manager, the W3C trace-context and baggage
 * propagators, and the gRPC and HTTP instrumentations that inject and
 * extract `traceparent`. No tracer provider is registered (the SDK
 * registers none without a span processor either): the instrumentations'
 * spans are the API's no-op ones, which pass the caller's context on as it
 * came, and a request that brings no `traceparent` starts no trace.
 */
import { context, propagation } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { GrpcInstrumentation } from '@opentelemetry/instrumentation-grpc';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { propagateIncomingContext } from './incoming-context';

/** Starts context propagation; returns the undo. */
export function startContextOnly(): () => void {
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }));
  // Incoming HTTP requests take their caller's context in incoming-context.ts,
  // without the unrecorded server span the instrumentation would make.
  const unregister = registerInstrumentations({
    instrumentations: [new HttpInstrumentation({ disableIncomingRequestInstrumentation: true }), new GrpcInstrumentation()],
  });
  const stopIncomingContext = propagateIncomingContext();
  return () => {
    stopIncomingContext();
    unregister();
    propagation.disable();
    context.disable();
  };
}
