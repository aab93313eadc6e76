/** The domain events on Kafka, as the webhooks service reads them. */
import { Kafka, logLevel, type Consumer } from 'kafkajs';
import { randomBase62 } from '@partner-api/shared';

export interface CollectedEvent {
  id: string;
  type: string;
  livemode: boolean;
  organisation_id: number;
  data: { object: Record<string, unknown> } & Record<string, unknown>;
}

/**
 * Collects every event of one organisation written to the events topic from
 * the moment it starts. Start it before the organisation does anything: the
 * topic keeps every earlier run's events (hundreds of thousands on a
 * developer's machine after some benchmark runs), and reading them all
 * first would outlast a test.
 */
export class EventCollector {
  readonly events: CollectedEvent[] = [];
  private consumer?: Consumer;

  constructor(private readonly organisationId: number) {}

  async start(): Promise<void> {
    const kafka = new Kafka({
      clientId: 'e2e-events',
      brokers: (process.env.KAFKA_BROKERS ?? '127.0.0.1:59092').split(','),
      logLevel: logLevel.NOTHING,
    });
    const topic = process.env.KAFKA_TOPIC ?? 'partner.events.v1';
    // Where the topic ends now: everything from there on is read (a group's own `latest` is resolved later, after run()).
    const admin = kafka.admin();
    await admin.connect();
    const ends = await admin.fetchTopicOffsets(topic).finally(() => admin.disconnect());
    this.consumer = kafka.consumer({ groupId: `e2e-${randomBase62(10)}` });
    await this.consumer.connect();
    await this.consumer.subscribe({ topic, fromBeginning: true });
    await this.consumer.run({
      eachMessage: async ({ message }) => {
        const event = JSON.parse(message.value!.toString()) as CollectedEvent;
        if (event.organisation_id === this.organisationId) this.events.push(event);
      },
    });
    for (const { partition, offset } of ends) this.consumer.seek({ topic, partition, offset });
  }

  /** Waits until `predicate` holds over the events seen so far. */
  async waitFor(predicate: (events: CollectedEvent[]) => boolean, what: string, timeoutMs = 20_000): Promise<CollectedEvent[]> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(this.events)) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; saw ${this.events.map((event) => event.type).join(', ')}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return this.events;
  }

  async stop(): Promise<void> {
    await this.consumer?.disconnect();
  }
}
