/**
 * pino JSON logs carrying the trace and span ids of the active span, with
 * secrets redacted wherever they appear: the fields that hold them by name,
 * and anything shaped like an API key or a signing secret in any line (D383).
 */
import { isSpanContextValid, trace } from '@opentelemetry/api';
import pino, { type DestinationStream, type Logger } from 'pino';
import { maskSecrets } from './log-redaction';

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
export function createLogger(
  service: string,
  level: string = process.env.LOG_LEVEL ?? 'info',
  destination: DestinationStream = pino.destination({ dest: 1, sync: false }),
): Logger {
  return pino({
    name: service,
    level,
    base: { service },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    // Every line, a child's too, whatever field or message carries the secret.
    hooks: { streamWrite: maskSecrets },
    timestamp: pino.stdTimeFunctions.isoTime,
    mixin() {
      const context = trace.getActiveSpan()?.spanContext();
      // Unsampled root spans carry no ids worth logging.
      if (!context || !isSpanContextValid(context)) return {};
      return { trace_id: context.traceId, span_id: context.spanId };
    },
  }, destination);
}
