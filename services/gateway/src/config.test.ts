import { loadGatewayConfig } from './config';

test('the gateway needs a cursor secret of its own in production', () => {
  expect(() => loadGatewayConfig({ NODE_ENV: 'production' })).toThrow('CURSOR_SECRET must be set in production');
  expect(loadGatewayConfig({ NODE_ENV: 'production', CURSOR_SECRET: 'c'.repeat(32) }).CURSOR_SECRET).toBe('c'.repeat(32));
});
