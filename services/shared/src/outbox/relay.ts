/**
 * Publishes outbox rows to Kafka and stamps them published. Each batch is
 * claimed with FOR UPDATE SKIP LOCKED, so several relays (replicas) share
 * the work without publishing a row twice at the same time. A relay that
 * dies after sending but before committing leaves the rows unclaimed: they
 * are sent again (at-least-once), and consumers dedupe on the event id.
 * Each message carries, as headers, the trace of the request that wrote
 * its row (telemetry/messaging.ts).
 *
 * The relay owns its producer: it connects one when it first needs it,
 * replaces it after a failed batch, and disconnects it at stop. A batch
 * that failed (a broker killed mid-send) leaves the idempotent producer's
 * sequence numbers out of step with what the brokers stored, and kafkajs
 * does not reset them: the brokers would refuse every later send as out of
 * order, and the relay would never publish again. A new producer gets a new
 * producer id and starts its sequences afresh; what the old one may have
 * stored is sent again, which at-least-once allows.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Partitioners, type Message, type PartitionMetadata, type Producer } from 'kafkajs';
import type { Pool } from 'pg';
import type { Logger } from 'pino';
import { withSendSpans } from '../telemetry/messaging';

interface OutboxRow {
  id: string;
  event_id: string;
  event_type: string;
  partition_key: string;
  payload: string;
  headers: Record<string, string>;
}

export interface OutboxRelayOptions {
  pool: Pool;
  /** A connected idempotent producer, asked for at the start and after every failed batch. */
  connectProducer: () => Promise<Producer>;
  topic: string;
  logger: Logger;
  batchSize?: number;
  idlePollMs?: number;
  /**
   * The topic's partition count. Given, each partition's messages go in a
   * send of their own (see publish); without it, one send for the batch,
   * which is only safe on a single broker.
   */
  partitions?: number;
}

// Where kafkajs's default partitioner puts a key among `count` partitions (murmur2 of the key).
const defaultPartitioner = Partitioners.DefaultPartitioner();
const partitionOf = (topic: string, key: string, count: number): number =>
  defaultPartitioner({ topic, message: { key, value: null }, partitionMetadata: Array.from({ length: count }, (_, id) => ({ partitionId: id, leader: 0 }) as PartitionMetadata) });

export class OutboxRelay {
  private running = false;
  private loop: Promise<void> | undefined;
  private producer: Promise<Producer> | undefined;
  private readonly batchSize: number;
  private readonly idlePollMs: number;

  constructor(private readonly options: OutboxRelayOptions) {
    this.batchSize = options.batchSize ?? 200;
    this.idlePollMs = options.idlePollMs ?? 100;
  }

  /** Publishes one batch; returns how many rows it published. */
  async publishBatch(): Promise<number> {
    try {
      return await this.claimAndPublish();
    } catch (error) {
      await this.discardProducer();
      throw error;
    }
  }

  private async claimAndPublish(): Promise<number> {
    const { pool, topic } = this.options;
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const { rows } = await client.query<OutboxRow>(
        `SELECT id, event_id, event_type, partition_key, payload::text AS payload, headers
           FROM outbox
          WHERE published_at IS NULL
          ORDER BY id
          LIMIT $1
          FOR UPDATE SKIP LOCKED`,
        [this.batchSize],
      );
      if (rows.length === 0) {
        await client.query('COMMIT');
        return 0;
      }
      const producer = await this.currentProducer();
      // Each message's send span continues the request that wrote its row.
      const traced = rows.map((row) => ({ carrier: row.headers, attributes: { 'messaging.message.id': row.event_id, 'messaging.kafka.message.key': row.partition_key } }));
      await withSendSpans(topic, traced, (carriers) =>
        this.publish(
          producer,
          topic,
          rows.map((row, i) => ({
            key: row.partition_key,
            value: row.payload,
            headers: { ...row.headers, ...carriers[i], 'event-id': row.event_id, 'event-type': row.event_type },
          })),
        ),
      );
      await client.query('UPDATE outbox SET published_at = now() WHERE id = ANY($1::bigint[])', [
        rows.map((row) => row.id),
      ]);
      await client.query('COMMIT');
      return rows.length;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  /**
   * One send per partition, all at once; any failure fails the batch (sent
   * again whole: duplicates, never loss). A single send spanning several
   * leaders can lose messages in kafkajs: when one leader fails and its
   * partitions move to a leader that already answered, the retry skips
   * that broker and the send resolves without them (seen in
   * broker-kill.cluster.test.ts). The batch fails only once every send has
   * settled: the producer is then discarded with nothing of it in flight,
   * where a send still retrying inside kafkajs would outlive the disconnect
   * and reconnect to the broker when it came back.
   */
  private async publish(producer: Producer, topic: string, messages: Array<Message & { key: string }>): Promise<void> {
    const count = this.options.partitions;
    if (!count) {
      await producer.send({ topic, acks: -1, messages });
      return;
    }
    const byPartition = new Map<number, Message[]>();
    for (const message of messages) {
      const partition = partitionOf(topic, message.key, count);
      byPartition.set(partition, [...(byPartition.get(partition) ?? []), { ...message, partition }]);
    }
    const sends = await Promise.allSettled([...byPartition.values()].map((group) => producer.send({ topic, acks: -1, messages: group })));
    const failed = sends.find((send): send is PromiseRejectedResult => send.status === 'rejected');
    if (failed) throw failed.reason;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = (async () => {
      let failures = 0;
      while (this.running) {
        try {
          const published = await this.publishBatch();
          failures = 0;
          if (published < this.batchSize) await sleep(this.idlePollMs);
        } catch (error) {
          failures += 1;
          this.options.logger.error({ err: error, failures }, 'outbox relay batch failed; will retry');
          await sleep(Math.min(5_000, 100 * 2 ** Math.min(failures, 6)));
        }
      }
    })();
  }

  /** Finishes the batch in flight, then stops and disconnects its producer. */
  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
    await this.discardProducer();
  }

  private currentProducer(): Promise<Producer> {
    // A failed connect is not kept: the next batch tries again.
    this.producer ??= this.options.connectProducer().catch((error: unknown) => {
      this.producer = undefined;
      throw error;
    });
    return this.producer;
  }

  private async discardProducer(): Promise<void> {
    const producer = this.producer;
    this.producer = undefined;
    await producer?.then((connected) => connected.disconnect()).catch(() => undefined);
  }
}
