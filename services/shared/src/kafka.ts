/** Kafka clients with pino logging and the topic the platform publishes to. */
import { setTimeout as sleep } from 'node:timers/promises';
import { Kafka, KafkaJSProtocolError, logLevel, Partitioners, type Admin, type Producer } from 'kafkajs';
import type { Logger } from 'pino';

export function createKafka(options: { brokers: string[]; clientId: string; logger: Logger }): Kafka {
  const { logger } = options;
  return new Kafka({
    clientId: options.clientId,
    brokers: options.brokers,
    logLevel: logLevel.WARN,
    retry: { retries: 8, initialRetryTime: 200 },
    logCreator: () => (entry) => {
      const { message, ...extra } = entry.log;
      const level = entry.level === logLevel.ERROR ? 'error' : entry.level === logLevel.WARN ? 'warn' : 'debug';
      logger[level]({ kafka: extra, namespace: entry.namespace }, message);
    },
  });
}

/** An idempotent producer: acks from all in-sync replicas, no duplicates from its own retries. */
export function createIdempotentProducer(kafka: Kafka): Producer {
  return kafka.producer({
    idempotent: true,
    maxInFlightRequests: 1,
    createPartitioner: Partitioners.DefaultPartitioner,
  });
}

/**
 * Connects a kafkajs client (producer, consumer or admin). A connect that
 * fails half way (an idempotent producer that cannot get its producer id
 * from a broker just lost) rejects with the connections it had opened, the
 * seed broker's among them, still open and their timers running; kafkajs
 * closes them only on `disconnect()`. So a failed connect is disconnected
 * before its error is passed on: the outbox relay connects a new producer
 * after every failed batch, and each failure kept a connection for good.
 */
export async function connectOrClose<T extends { connect(): Promise<void>; disconnect(): Promise<void> }>(client: T): Promise<T> {
  try {
    await client.connect();
  } catch (error) {
    await client.disconnect().catch(() => undefined);
    throw error;
  }
  return client;
}

/** An idempotent producer, connected. */
export function connectIdempotentProducer(kafka: Kafka): Promise<Producer> {
  return connectOrClose(createIdempotentProducer(kafka));
}

/**
 * Creates the topic if it is missing (replication and min ISR from the
 * brokers' defaults); returns how many partitions it has, once every one
 * has a leader.
 */
export async function ensureTopic(kafka: Kafka, topic: string, numPartitions = 6): Promise<number> {
  const admin = await connectOrClose(kafka.admin());
  try {
    const existing = await admin.listTopics();
    if (!existing.includes(topic)) await admin.createTopics({ topics: [{ topic, numPartitions }], waitForLeaders: false });
    return await partitionsWithLeaders(admin, topic);
  } finally {
    await admin.disconnect();
  }
}

/** A topic or leader the answering broker does not know yet (kafkajs may wrap it after its own retries). */
function notYetKnown(error: unknown): boolean {
  for (let cause = error; cause instanceof Error; cause = (cause as { cause?: unknown }).cause ?? (cause as { originalError?: unknown }).originalError) {
    if (cause instanceof KafkaJSProtocolError && ['UNKNOWN_TOPIC_OR_PARTITION', 'LEADER_NOT_AVAILABLE'].includes(cause.type)) return true;
  }
  return false;
}

/**
 * Waits until the topic's partitions all have leaders. On a cluster, the
 * broker asked may not know a topic created a moment ago and answers
 * UNKNOWN_TOPIC_OR_PARTITION, which kafkajs's own wait does not retry.
 */
async function partitionsWithLeaders(admin: Admin, topic: string, timeoutMs = 30_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const [metadata] = (await admin.fetchTopicMetadata({ topics: [topic] })).topics;
      if (metadata && metadata.partitions.length > 0 && metadata.partitions.every((partition) => partition.leader >= 0)) {
        return metadata.partitions.length;
      }
    } catch (error) {
      if (!notYetKnown(error) || Date.now() > deadline) throw error;
    }
    if (Date.now() > deadline) throw new Error(`topic ${topic} has partitions without a leader after ${timeoutMs} ms`);
    await sleep(200);
  }
}
