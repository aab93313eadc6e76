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
  });
}
