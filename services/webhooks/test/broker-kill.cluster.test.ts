/**
 * Nothing is lost when a Kafka broker dies. On the local 3-node cluster
 * (replication 3, min ISR 2; `make test-kafka-cluster` starts it), an outbox
 * relay publishes a steady stream of events while the webhooks service
 * consumes them and delivers to a receiver; the broker leading partition 0
 * is SIGKILLed mid-stream and stays down. Every event still reaches the
 * receiver. Duplicates (on the topic, from a batch the relay sent again
 * after a failed send, and at the receiver) are counted and printed: they
 * are allowed (at-least-once; receivers dedupe on the event id), loss is not.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Admin } from 'kafkajs';
import {
  appendToOutbox,
  buildEvent,
  connectIdempotentProducer,
  createKafka,
  createLogger,
  ensureTopic,
  inTransaction,
  OutboxRelay,
  randomBase62,
} from '@partner-api/shared';
import { collectTopic, createScratchSchema, kafkaBrokers, testKafka } from '../../shared/test/support';
import { Receiver, scratchDatabase, startService, waitFor, type ServiceUnderTest } from './support';

const EVENTS = 1_200;
const PER_TICK = 12; // events committed every 100 ms: 120/s, about 10 s of stream
const KILL_AFTER = 300; // events written before the broker dies
const organisationId = 840_000 + Math.floor(Math.random() * 9_999);
const topic = `it.cluster.${randomBase62(8)}`;
const logger = createLogger('broker-kill-it', 'silent');
const run = promisify(execFile);

const infraScript = (): string => {
  const script = process.env.KAFKA_CLUSTER_INFRA;
  if (!script) throw new Error('KAFKA_CLUSTER_INFRA is not set: run this suite with `make test-kafka-cluster`');
  return script;
};

let outbox: Awaited<ReturnType<typeof createScratchSchema>>;
let database: Awaited<ReturnType<typeof scratchDatabase>>;
let receiver: Receiver;
let service: ServiceUnderTest | undefined;
let relay: OutboxRelay | undefined;
let admin: Admin;
let killedNode: number | undefined;
let partitionCount = 0;
const kafka = testKafka();

/** The topic's partitions; retried, since a broker learns of a new topic a moment after its creation. */
async function partitions(): Promise<Array<{ partitionId: number; leader: number; replicas: number[]; isr: number[] }>> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return (await admin.fetchTopicMetadata({ topics: [topic] })).topics[0]!.partitions;
    } catch (error) {
      if (attempt >= 20) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

beforeAll(async () => {
  infraScript();
  expect(kafkaBrokers()).toHaveLength(3);
  admin = kafka.admin();
  await admin.connect();
  outbox = await createScratchSchema();
  database = await scratchDatabase();
  receiver = await new Receiver().start();
  // Created as the services create it: the brokers' defaults give replication 3 and min ISR 2.
  partitionCount = await ensureTopic(createKafka({ brokers: kafkaBrokers(), clientId: 'broker-kill-it', logger }), topic);
}, 60_000);

afterAll(async () => {
  await relay?.stop();
  await service?.stop();
  await receiver?.stop();
  await database?.drop();
  await outbox?.drop();
  await admin?.deleteTopics({ topics: [topic] }).catch(() => undefined);
  await admin?.disconnect();
  // Bring the killed node back, so the cluster is whole for whatever runs next.
  if (killedNode !== undefined) await run(infraScript(), ['start', 'kafka-cluster']);
}, 180_000);

/** Where undelivered events got to: on the topic, in the webhooks service's tables. */
async function whereMissing(missing: string[]): Promise<string> {
  const onTopic = await collectTopic(kafka, topic);
  await waitFor(() => onTopic.messages.length >= EVENTS - missing.length, 30_000, 'the topic read back').catch(() => undefined);
  await onTopic.consumer.disconnect();
  const seen = new Set(onTopic.messages.map((message) => message.headers!['event-id']!.toString()));
  const { rows } = await database.pool.query<{ id: string; statuses: string[] }>(
    `SELECT e.id, array_agg(d.status) AS statuses FROM events e LEFT JOIN deliveries d ON d.event_id = e.id WHERE e.id = ANY($1) GROUP BY e.id`,
    [missing],
  );
  return `${missing.length} missing; ${missing.filter((id) => seen.has(id)).length} of them on the topic; in webhooks: ${JSON.stringify(rows)}`;
}

/**
 * The topic's settings. On a fresh cluster the broker asked may not have
 * heard of a topic just created, though its partitions have leaders: ask
 * again until it has.
 */
async function topicConfig(configNames: string[]): Promise<Record<string, string>> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      const [config] = (await admin.describeConfigs({ resources: [{ type: 2, name: topic, configNames }], includeSynonyms: false })).resources;
      return Object.fromEntries(config!.configEntries.map((entry) => [entry.configName, entry.configValue]));
    } catch (error) {
      if ((error as { type?: string }).type !== 'UNKNOWN_TOPIC_OR_PARTITION' || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

it('delivers every event while one of three brokers is SIGKILLed mid-stream', async () => {
  expect((await partitions()).every((partition) => partition.replicas.length === 3)).toBe(true);
  expect(await topicConfig(['min.insync.replicas', 'unclean.leader.election.enable'])).toEqual({
    'min.insync.replicas': '2',
    'unclean.leader.election.enable': 'false',
  });

  await database.pool.query(`INSERT INTO endpoints (organisation_id, url, event_types, mode, secret) VALUES ($1, $2, '{*}', 'live', $3)`, [
    organisationId,
    `${receiver.url}/hooks`,
    `whsec_${randomBase62(32)}`,
  ]);
  service = await startService(database.url, { KAFKA_TOPIC: topic, KAFKA_SESSION_TIMEOUT_MS: '6000', WEBHOOK_TIMEOUT_MS: '2000' });
  const relayKafka = createKafka({ brokers: kafkaBrokers(), clientId: 'relay-under-test', logger });
  relay = new OutboxRelay({ pool: outbox.pool, connectProducer: () => connectIdempotentProducer(relayKafka), topic, logger, batchSize: 50, idlePollMs: 20, partitions: partitionCount });
  relay.start();

  // The stream: PER_TICK events committed with a state change every 100 ms.
  const written: string[] = [];
  const writer = (async () => {
    while (written.length < EVENTS) {
      await inTransaction(outbox.pool, async (client) => {
        for (let i = 0; i < PER_TICK && written.length < EVENTS; i += 1) {
          const event = buildEvent('ticket.issued', { organisationId, livemode: true }, { object: 'ticket', id: written.length + 1 });
          await client.query('INSERT INTO things (name) VALUES ($1)', [event.id]);
          await appendToOutbox(client, event, `ticket:${written.length % 40}`);
          written.push(event.id);
        }
      });
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();

  const deliveredIds = () => new Set(receiver.requests.map((request) => String(request.headers['service-event-id'])));
  await waitFor(() => written.length >= KILL_AFTER && deliveredIds().size > 0, 60_000, 'the stream to be flowing end to end');

  // The broker leading partition 0 dies without a word.
  killedNode = (await partitions()).find((partition) => partition.partitionId === 0)!.leader;
  const writtenAtKill = written.length;
  const deliveredAtKill = deliveredIds().size;
  await run(infraScript(), ['kill', 'kafka', String(killedNode)]);
  const killedAt = Date.now();

  await writer;
  const unpublished = async () => Number((await outbox.pool.query('SELECT count(*) FROM outbox WHERE published_at IS NULL')).rows[0].count);
  await waitFor(async () => (await unpublished()) === 0, 150_000, 'the relay to publish every event');
  await waitFor(() => deliveredIds().size >= EVENTS, 150_000, 'every event at the receiver').catch(async (error: Error) => {
    throw new Error(`${error.message}: ${await whereMissing(written.filter((id) => !deliveredIds().has(id)))}`);
  });
  const allDeliveredMs = Date.now() - killedAt;

  // Nothing lost, nothing foreign.
  expect([...deliveredIds()].sort()).toEqual([...written].sort());

  // The killed broker really was down all along: no partition lists it in sync.
  expect((await partitions()).every((partition) => !partition.isr.includes(killedNode!) && partition.isr.length === 2)).toBe(true);

  // Duplicates: copies on the topic (a send retried by the relay after a failure) and extra POSTs at the receiver.
  const onTopic = await collectTopic(kafka, topic);
  await waitFor(() => new Set(onTopic.messages.map((message) => message.headers!['event-id']!.toString())).size >= EVENTS, 60_000, 'the whole topic read back');
  await onTopic.consumer.disconnect();
  const topicDuplicates = onTopic.messages.length - EVENTS;
  const receiverDuplicates = receiver.requests.length - EVENTS;
  console.log(
    `broker kill: node ${killedNode} SIGKILLed after ${writtenAtKill} of ${EVENTS} events written (${deliveredAtKill} delivered); ` +
      `all ${EVENTS} delivered ${(allDeliveredMs / 1000).toFixed(1)} s after the kill; ` +
      `duplicates: ${topicDuplicates} on the topic (${onTopic.messages.length} messages), ${receiverDuplicates} at the receiver (${receiver.requests.length} POSTs)`,
  );
  expect(topicDuplicates).toBeGreaterThanOrEqual(0);
  expect(receiverDuplicates).toBeGreaterThanOrEqual(0);
}, 360_000);
