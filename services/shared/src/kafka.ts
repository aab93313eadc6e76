/** Kafka clients with pino logging and the topic the platform publishes to. */
import { Kafka, logLevel, Partitioners, type Producer } from 'kafkajs';
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

/** Creates the topic if it is missing; returns how many partitions it has. */
export async function ensureTopic(kafka: Kafka, topic: string, numPartitions = 6): Promise<number> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const existing = await admin.listTopics();
    if (!existing.includes(topic)) {
      await admin.createTopics({ topics: [{ topic, numPartitions }], waitForLeaders: true });
    }
    const [metadata] = (await admin.fetchTopicMetadata({ topics: [topic] })).topics;
    return metadata?.partitions.length ?? numPartitions;
  } finally {
    await admin.disconnect();
  }
}
