import { randomBase62 } from '../src/events';
import { ensureTopic } from '../src/kafka';
import { createLogger } from '../src/logger';
import { ServiceRuntime } from '../src/runtime';
import { kafkaBrokers, testKafka, waitFor } from './support';

const logger = createLogger('consume-test', 'silent');
const kafka = testKafka();

describe('a consumer of a topic', () => {
  it('hands a partition on in chunks of at most its chunk size, in order', async () => {
    const topic = `it.consume.${randomBase62(8)}`;
    await ensureTopic(kafka, topic, 1);
    const producer = kafka.producer();
    await producer.connect();
    const values = Array.from({ length: 600 }, (_, i) => `message ${i}`);
    try {
      await producer.send({ topic, messages: values.map((value) => ({ value })) });
    } finally {
      await producer.disconnect();
    }

    // Already on the topic before the consumer starts: its first fetch brings more than one chunk.
    const chunks: string[][] = [];
    const runtime = new ServiceRuntime('consume-test', { BIND_HOST: '127.0.0.1', OPS_PORT: 0, LOG_LEVEL: 'silent' }, logger);
    try {
      await runtime.consume({ KAFKA_BROKERS: kafkaBrokers(), KAFKA_TOPIC: topic }, { groupId: `${topic}.group`, sessionTimeoutMs: 10_000, chunkSize: 250 }, async (messages) => {
        chunks.push(messages.map((message) => message.value));
      });
      await waitFor(() => chunks.flat().length >= values.length, 30_000, 'every message handed on');
    } finally {
      await runtime.stop();
    }
    expect(chunks.flat()).toEqual(values);
    expect(Math.max(...chunks.map((chunk) => chunk.length))).toBe(250);
  }, 60_000);
});
