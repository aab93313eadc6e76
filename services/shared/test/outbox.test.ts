import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { Consumer, KafkaMessage, Producer } from 'kafkajs';
import type { Pool } from 'pg';
import { createLogger } from '../src/logger';
import { buildEvent, randomBase62 } from '../src/events';
import { connectIdempotentProducer, ensureTopic } from '../src/kafka';
import { appendToOutbox, OutboxRelay, pruneOutbox } from '../src/outbox';
import { ServiceRuntime } from '../src/runtime';
import { inTransaction } from '../src/db';
import { collectTopic, createScratchSchema, databaseUrl, kafkaBrokers, testKafka, waitFor } from './support';

const logger = createLogger('outbox-test', 'silent');
const kafka = testKafka();

let scratch: Awaited<ReturnType<typeof createScratchSchema>>;
let pool: Pool;
let topic: string;
let collected: { messages: KafkaMessage[]; consumer: Consumer };

const eventIds = () => collected.messages.map((message) => JSON.parse(message.value!.toString()).id as string);
const unpublished = async () =>
  Number((await pool.query('SELECT count(*) FROM outbox WHERE published_at IS NULL')).rows[0].count);

/** A state change and its event, committed (or not) together. */
async function changeWithEvent(name: string, fail = false): Promise<string> {
  const event = buildEvent('event.updated', { organisationId: 1, livemode: true }, { object: 'event', name });
  await inTransaction(pool, async (client) => {
    await client.query('INSERT INTO things (name) VALUES ($1)', [name]);
    await appendToOutbox(client, event, `thing:${name}`);
    if (fail) throw new Error('rolled back on purpose');
  }).catch((error: Error) => {
    if (!fail) throw error;
  });
  return event.id;
}

beforeAll(async () => {
  scratch = await createScratchSchema();
  pool = scratch.pool;
  topic = `it.outbox.${randomBase62(8)}`;
  await ensureTopic(kafka, topic, 3);
  collected = await collectTopic(kafka, topic);
}, 60_000);

afterAll(async () => {
  await collected.consumer.disconnect();
  await scratch.drop();
}, 30_000); // leaving a Kafka consumer group can take seconds on a busy broker

describe('the transactional outbox', () => {
  it('publishes an event committed with its state change, keyed by object, in the body shape', async () => {
    const id = await changeWithEvent('committed');
    const relay = new OutboxRelay({ pool, connectProducer: () => connectIdempotentProducer(kafka), topic, logger });
    try {
      expect(await relay.publishBatch()).toBe(1);
      await waitFor(() => eventIds().includes(id), 20_000, 'the committed event on Kafka');
      const message = collected.messages.find((m) => JSON.parse(m.value!.toString()).id === id)!;
      expect(message.key!.toString()).toBe('thing:committed');
      expect(message.headers!['event-id']!.toString()).toBe(id);
      expect(JSON.parse(message.value!.toString())).toMatchObject({ object: 'event', type: 'event.updated', livemode: true });
      expect(await unpublished()).toBe(0);
    } finally {
      await relay.stop();
    }
  }, 60_000);

  it('publishes nothing for a rolled-back transaction', async () => {
    const rolledBack = await changeWithEvent('rolled-back', true);
    const marker = await changeWithEvent('after-rollback');
    expect(Number((await pool.query('SELECT count(*) FROM things WHERE name = $1', ['rolled-back'])).rows[0].count)).toBe(0);
    const relay = new OutboxRelay({ pool, connectProducer: () => connectIdempotentProducer(kafka), topic, logger });
    try {
      await relay.publishBatch();
      await waitFor(() => eventIds().includes(marker), 20_000, 'the marker event');
      expect(eventIds()).not.toContain(rolledBack);
    } finally {
      await relay.stop();
    }
  }, 60_000);

  it('takes a new producer after a failed batch, and publishes what it failed to', async () => {
    // A producer the brokers refuse stands for one whose sequence numbers a broker failover put out of step.
    const id = await changeWithEvent('after-a-failed-batch');
    const producers: Producer[] = [];
    const relay = new OutboxRelay({
      pool,
      topic,
      logger,
      connectProducer: async () => {
        const producer = await connectIdempotentProducer(kafka);
        if (producers.push(producer) === 1) await producer.disconnect();
        return producer;
      },
    });
    try {
      await expect(relay.publishBatch()).rejects.toThrow();
      expect(await unpublished()).toBeGreaterThan(0);
      expect(await relay.publishBatch()).toBeGreaterThanOrEqual(1);
      expect(producers).toHaveLength(2);
      await waitFor(() => eventIds().includes(id), 20_000, 'the event of the failed batch');
    } finally {
      await relay.stop();
    }
  }, 60_000);

  it('fails a batch only once every partition send of it has settled, and only then lets its producer go', async () => {
    // One partition's send is refused at once; the others are held back a moment, as a send retrying a dead leader is.
    for (let i = 0; i < 12; i += 1) await changeWithEvent(`settled-${i}`);
    const settled: string[] = [];
    const relay = new OutboxRelay({
      pool,
      topic,
      logger,
      partitions: 3,
      connectProducer: async () => {
        const producer = await connectIdempotentProducer(kafka);
        let sends = 0;
        return Object.assign(Object.create(producer) as Producer, {
          send: async (record: Parameters<Producer['send']>[0]) => {
            if ((sends += 1) === 1) throw new Error('refused: a leader went away');
            await new Promise((resolve) => setTimeout(resolve, 300));
            const result = await producer.send(record);
            settled.push('send');
            return result;
          },
          disconnect: async () => {
            settled.push('disconnect');
            await producer.disconnect();
          },
        });
      },
    });
    try {
      await expect(relay.publishBatch()).rejects.toThrow('refused');
      // Both held-back sends finished before the batch failed, and the producer was kept until they had.
      expect(settled).toEqual(['send', 'send', 'disconnect']);
    } finally {
      await relay.stop();
    }
  }, 60_000);

  it('loses nothing when the relay is killed (SIGKILL) mid-stream and restarted', async () => {
    const ids = new Set<string>();
    for (let i = 0; i < 400; i += 1) ids.add(await changeWithEvent(`bulk-${i}`));
    const spawnRelay = (): ChildProcess =>
      spawn(process.execPath, [path.join(__dirname, 'fixtures', 'relay-process.js')], {
        env: { ...process.env, DATABASE_URL: databaseUrl(), KAFKA_BROKERS: kafkaBrokers().join(','), SCHEMA: scratch.schema, TOPIC: topic, BATCH_SIZE: '10' },
        stdio: ['ignore', 'pipe', 'inherit'],
      });

    const first = spawnRelay();
    const seenBefore = eventIds().length;
    await waitFor(() => eventIds().length > seenBefore, 30_000, 'the first relay to publish');
    first.kill('SIGKILL');
    await new Promise((resolve) => first.once('exit', resolve));
    const left = await unpublished();
    expect(left).toBeGreaterThan(0); // it really died mid-stream

    const second = spawnRelay();
    try {
      await waitFor(async () => (await unpublished()) === 0, 60_000, 'the restarted relay to drain the outbox');
      await waitFor(() => [...ids].every((id) => eventIds().includes(id)), 30_000, 'every event on Kafka');
    } finally {
      second.kill('SIGTERM');
    }
    const received = eventIds().filter((id) => ids.has(id));
    expect(new Set(received)).toEqual(ids); // nothing lost; duplicates are allowed, consumers dedupe
  }, 120_000);
});

describe('retention of published rows (D365)', () => {
  const DAY = 86_400_000;
  /** A row written `daysAgo` days ago, published or not; returns its event id. */
  async function row(daysAgo: number, published: boolean): Promise<string> {
    const eventId = `evt_retention_${randomBase62(10)}`;
    await pool.query(
      `INSERT INTO outbox (event_id, event_type, partition_key, payload, created_at, published_at)
       VALUES ($1, 'event.updated', 'thing:retention', '{}', now() - $2 * interval '1 day', CASE WHEN $3 THEN now() - $2 * interval '1 day' END)`,
      [eventId, daysAgo, published],
    );
    return eventId;
  }
  const remaining = async (ids: string[]) =>
    (await pool.query<{ event_id: string }>('SELECT event_id FROM outbox WHERE event_id = ANY ($1) ORDER BY id', [ids])).rows.map((r) => r.event_id);

  beforeEach(async () => {
    await pool.query('DELETE FROM outbox');
  });

  it('deletes rows published and written before the cutoff, oldest first, a batch at a time; keeps recent rows and rows never published', async () => {
    const oldest = await row(30, true);
    const older = await row(20, true);
    const old = await row(10, true);
    const owed = await row(40, false);
    const recent = await row(1, true);
    const cutoff = new Date(Date.now() - 7 * DAY);

    expect(await pruneOutbox(pool, cutoff, 2)).toBe(2);
    expect(await remaining([oldest, older, old, owed, recent])).toEqual([old, owed, recent]);
    expect(await pruneOutbox(pool, cutoff, 2)).toBe(1);
    expect(await pruneOutbox(pool, cutoff, 2)).toBe(0);
    expect(await remaining([oldest, older, old, owed, recent])).toEqual([owed, recent]);
  });

  it('is run by every service with an outbox, on its interval, unless the retention is 0', async () => {
    const config = { KAFKA_BROKERS: kafkaBrokers(), KAFKA_TOPIC: topic, OUTBOX_RETENTION_INTERVAL_MS: 50, OUTBOX_RETENTION_BATCH: 100 };
    const start = async (hours: number) => {
      const runtime = new ServiceRuntime('retention-test', { BIND_HOST: '127.0.0.1', OPS_PORT: 0, LOG_LEVEL: 'silent' }, logger);
      await runtime.outboxRelay(pool, { ...config, OUTBOX_RETENTION_HOURS: hours });
      return runtime;
    };

    const kept = await row(30, true);
    const keeping = await start(0);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await keeping.stop();
    expect(await remaining([kept])).toEqual([kept]);

    const pruning = await start(24 * 7);
    try {
      await waitFor(async () => (await remaining([kept])).length === 0, 10_000, 'the old row pruned by the runtime');
    } finally {
      await pruning.stop();
    }
  });
});

