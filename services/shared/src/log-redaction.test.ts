import { loggableUrl, maskSecrets } from './log-redaction';

const LIVE_KEY = 'svc_live_0123456789abcdefghijABCDEFGHIJ01';
const SIGNING_SECRET = 'whsec_4hQm9Zr2XbV7nK1pL8sT3wY6cF0dJ5gA';

describe('maskSecrets', () => {
  it('masks API keys and signing secrets anywhere in a line, keeping their prefix', () => {
    expect(maskSecrets(`{"url":"/?api_key=${LIVE_KEY}","msg":"Bearer svc_test_abc ${SIGNING_SECRET}"}`)).toBe(
      '{"url":"/?api_key=svc_live_[redacted]","msg":"Bearer svc_test_[redacted] whsec_[redacted]"}',
    );
  });

  it('leaves a line without them as it is (the same string)', () => {
    const line = '{"msg":"request completed","svc":"gateway"}';
    expect(maskSecrets(line)).toBe(line);
  });
});

describe('loggableUrl', () => {
  const known = new Set(['limit', 'cursor', 'event_id']);

  it('keeps the path and the values of the API’s own parameters', () => {
    expect(loggableUrl('/events?limit=5&cursor=abc', known)).toBe('/events?limit=5&cursor=abc');
    expect(loggableUrl('/events', known)).toBe('/events');
  });

  it('redacts the value of any other parameter, whatever it holds', () => {
    expect(loggableUrl(`/?api_key=${LIVE_KEY}&limit=2&token=t0k3n&flag`, known)).toBe('/?api_key=[redacted]&limit=2&token=[redacted]&flag');
    expect(loggableUrl('/orders?event%5Fid=7&%ZZ=1', known)).toBe('/orders?event%5Fid=7&%ZZ=[redacted]');
  });
});
