import { loadWebhooksConfig } from './config';

const base = { KAFKA_BROKERS: '127.0.0.1:9092' };

test('a chunk of the webhooks consumer is 250 events unless set, and from 1 to 1,000', () => {
  expect(loadWebhooksConfig(base).WEBHOOK_EVENTS_PER_CHUNK).toBe(250);
  expect(loadWebhooksConfig({ ...base, WEBHOOK_EVENTS_PER_CHUNK: '100' }).WEBHOOK_EVENTS_PER_CHUNK).toBe(100);
  expect(() => loadWebhooksConfig({ ...base, WEBHOOK_EVENTS_PER_CHUNK: '0' })).toThrow('WEBHOOK_EVENTS_PER_CHUNK');
  expect(() => loadWebhooksConfig({ ...base, WEBHOOK_EVENTS_PER_CHUNK: '1001' })).toThrow('WEBHOOK_EVENTS_PER_CHUNK');
  expect(() => loadWebhooksConfig({ ...base, WEBHOOK_EVENTS_PER_CHUNK: 'lots' })).toThrow('WEBHOOK_EVENTS_PER_CHUNK');
});
