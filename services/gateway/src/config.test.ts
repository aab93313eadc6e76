import { loadGatewayConfig } from './config';

test('the gateway needs a cursor secret of its own in production', () => {
  expect(() => loadGatewayConfig({ NODE_ENV: 'production' })).toThrow('CURSOR_SECRET must be set in production');
  expect(loadGatewayConfig({ NODE_ENV: 'production', CURSOR_SECRET: 'c'.repeat(32) }).CURSOR_SECRET).toBe('c'.repeat(32));
});

test('the gateway trusts no proxy unless TRUST_PROXY names one (D381)', () => {
  expect(loadGatewayConfig({}).TRUST_PROXY).toEqual([]);
  expect(loadGatewayConfig({ TRUST_PROXY: '10.0.0.0/8' }).TRUST_PROXY).toEqual(['10.0.0.0/8']);
  expect(() => loadGatewayConfig({ TRUST_PROXY: 'loopback' })).toThrow(/TRUST_PROXY.*not an IP address or CIDR range/s);
});
