import { Writable } from 'node:stream';
import { createLogger } from './logger';

const LIVE_KEY = 'svc_live_0123456789abcdefghijABCDEFGHIJ01';

function capturedLogger() {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  return { logger: createLogger('test', 'info', sink), lines };
}

test('no line keeps a key or a signing secret, in any field, message or child logger (D383)', () => {
  const { logger, lines } = capturedLogger();
  logger.info({ req: { url: `/?api_key=${LIVE_KEY}` } }, 'request completed');
  logger.error({ err: new Error(`bad header Bearer ${LIVE_KEY}`) }, 'failed');
  logger.child({}, { redact: [] }).warn(`endpoint secret whsec_4hQm9Zr2XbV7nK1pL8sT3wY6cF0dJ5gA leaked`);
  expect(lines).toHaveLength(3);
  for (const line of lines) {
    expect(line).not.toMatch(/svc_live_[0-9A-Za-z]|whsec_[0-9A-Za-z]/);
    expect(line).toContain('[redacted]');
  }
});
