/**
 * Trace context for incoming HTTP requests when no spans are recorded.
 *
 * Without a collector the http instrumentation's server side makes a span
 * nobody records, and on every request still computes its attributes, reads
 * clocks, adds listeners and records metrics: about a quarter of the
 * gateway's CPU per request. What has to survive is only the context, so
 * this does just that part, the way the instrumentation does it: the request
 * runs in the context its `traceparent` names (and its request and response
 * emitters call listeners in it), so logs and outgoing gRPC, HTTP and Kafka
 * calls carry the caller's trace as before.
 */
import http from 'node:http';
import https from 'node:https';
import { context, propagation, ROOT_CONTEXT } from '@opentelemetry/api';

type Emit = (this: http.Server, event: string | symbol, ...args: unknown[]) => boolean;

function inRequestContext(emit: Emit): Emit {
  return function emitRequest(this: http.Server, event, ...args) {
    if (event !== 'request') return emit.call(this, event, ...args);
    const [request, response] = args as [http.IncomingMessage, http.ServerResponse];
    // Nothing to carry (most partners send no trace context): the request already runs in the root
    // context, and binding its emitters to it would cost every listener a wrapper for no change.
    if (request.headers.traceparent === undefined && request.headers.baggage === undefined && context.active() === ROOT_CONTEXT) {
      return emit.call(this, event, ...args);
    }
    const active = propagation.extract(ROOT_CONTEXT, request.headers);
    context.bind(active, request);
    context.bind(active, response);
    return context.with(active, emit, this, event, request, response);
  };
}

/** Runs every request of every HTTP(S) server in its caller's trace context; returns the undo. */
export function propagateIncomingContext(): () => void {
  const undo = [http.Server.prototype, https.Server.prototype].map((server) => {
    const emit = server.emit as Emit;
    server.emit = inRequestContext(emit);
    return () => {
      server.emit = emit;
    };
  });
  return () => undo.forEach((step) => step());
}
