/**
 * pino JSON logs carrying the trace and span ids of the active span, with
 * secrets redacted wherever they appear.
 */
import { isSpanContextValid, trace } from '@opentelemetry/api';
import pino, { type Logger } from 'pino';

export type { Logger } from 'pino';

export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'secret',
  '*.secret',
  'apiKey',
  '*.apiKey',
];

/**
 * Lines go to stdout asynchronously: each is queued and written as soon as the
 * previous write is done, so under load many lines leave in one write instead
 * of one blocking write each. pino flushes what is queued when the process
 * exits (exit, uncaught error, process.exit after a signal).
 */
export function createLogger(service: string, level: string = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({
    name: service,
    level,
    base: { service },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
    mixin() {
      const context = trace.getActiveSpan()?.spanContext();
      // Unsampled root spans carry no ids worth logging.
      if (!context || !isSpanContextValid(context)) return {};
      return { trace_id: context.traceId, span_id: context.spanId };
    },
  }, pino.destination({ dest: 1, sync: false }));
}
