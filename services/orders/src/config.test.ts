import { loadOrdersConfig } from './config';

test('orders needs a channel token secret of its own in production', () => {
  expect(() => loadOrdersConfig({ NODE_ENV: 'production' })).toThrow('CHANNEL_TOKEN_SECRET must be set in production');
  expect(loadOrdersConfig({ NODE_ENV: 'production', CHANNEL_TOKEN_SECRET: 'h'.repeat(32), TICKET_PAGE_SECRET: 't'.repeat(32), WAITING_ROOM_PASS_SECRET: 'w'.repeat(32) }).CHANNEL_TOKEN_SECRET).toBe('h'.repeat(32));
});

test('orders needs a ticket page secret of its own in production (D420)', () => {
  expect(() => loadOrdersConfig({ NODE_ENV: 'production', CHANNEL_TOKEN_SECRET: 'h'.repeat(32) })).toThrow('TICKET_PAGE_SECRET must be set in production');
  expect(loadOrdersConfig({ NODE_ENV: 'production', CHANNEL_TOKEN_SECRET: 'h'.repeat(32), TICKET_PAGE_SECRET: 't'.repeat(32), WAITING_ROOM_PASS_SECRET: 'w'.repeat(32) }).TICKET_PAGE_SECRET).toBe('t'.repeat(32));
});

test('orders needs a waiting room pass secret of its own in production (D475)', () => {
  expect(() => loadOrdersConfig({ NODE_ENV: 'production', CHANNEL_TOKEN_SECRET: 'h'.repeat(32), TICKET_PAGE_SECRET: 't'.repeat(32) })).toThrow('WAITING_ROOM_PASS_SECRET must be set in production');
  expect(loadOrdersConfig({ NODE_ENV: 'production', CHANNEL_TOKEN_SECRET: 'h'.repeat(32), TICKET_PAGE_SECRET: 't'.repeat(32), WAITING_ROOM_PASS_SECRET: 'w'.repeat(32) }).WAITING_ROOM_PASS_SECRET).toBe('w'.repeat(32));
});

test('the hosted pages trust no proxy unless TRUST_PROXY names one (D381)', () => {
  expect(loadOrdersConfig({}).TRUST_PROXY).toEqual([]);
  expect(() => loadOrdersConfig({ TRUST_PROXY: 'loopback,uniquelocal' })).toThrow(/TRUST_PROXY.*not an IP address or CIDR range/s);
});
