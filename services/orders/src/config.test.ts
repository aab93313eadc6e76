import { loadOrdersConfig } from './config';

test('orders needs a channel token secret of its own in production', () => {
  expect(() => loadOrdersConfig({ NODE_ENV: 'production' })).toThrow('CHANNEL_TOKEN_SECRET must be set in production');
  expect(loadOrdersConfig({ NODE_ENV: 'production', CHANNEL_TOKEN_SECRET: 'h'.repeat(32) }).CHANNEL_TOKEN_SECRET).toBe('h'.repeat(32));
});
