/**
 * Kafka consumer lag, read when Prometheus scrapes: for each partition of
 * the topic, the high watermark less the group's committed offset (or less
 * the low watermark where the group has committed nothing yet). Read from
 * the brokers through an admin client, not from the consumer's own events,
 * so a consumer that is stuck or has died still shows its lag (from any
 * other member of the group; every member reports the same figures, so
 * dashboards take `max by (group, partition)`). A scrape that cannot reach
 * the brokers reports no lag series rather than stale ones.
 */
import type { Admin, Kafka } from 'kafkajs';
import { Gauge, type Registry } from 'prom-client';
import { connectOrClose } from '../kafka';
import { scrapeRead } from './scrape-read';

export function registerConsumerLag(registry: Registry, kafka: Kafka, group: string, topic: string): { close(): Promise<void> } {
  let admin: Admin | undefined;
  const connected = async () => {
    admin ??= await connectOrClose(kafka.admin());
    return admin;
  };
  new Gauge({
    name: 'kafka_consumer_group_lag',
    help: 'Messages in a partition that the consumer group has not committed yet',
    labelNames: ['group', 'topic', 'partition'],
    registers: [registry],
    async collect() {
      this.reset();
      const offsets = await scrapeRead(async () => {
        const client = await connected();
        return Promise.all([client.fetchTopicOffsets(topic), client.fetchOffsets({ groupId: group, topics: [topic] })]);
      });
      if (!offsets) return;
      const [ends, committed] = offsets;
      const done = new Map((committed[0]?.partitions ?? []).map((entry) => [entry.partition, Number(entry.offset)]));
      for (const end of ends) {
        const from = done.get(end.partition) ?? -1;
        const lag = Number(end.high) - (from >= 0 ? from : Number(end.low));
        this.set({ group, topic, partition: String(end.partition) }, Math.max(0, lag));
      }
    },
  });
  return {
    close: async () => {
      await admin?.disconnect();
      admin = undefined;
    },
  };
}
