/** The domain events on Kafka, as the webhooks service reads them. */
import type { Consumer, KafkaMessage } from 'kafkajs';
import { collectTopicFromNow, testKafka } from '../../services/shared/test/support';

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
  private collected?: { messages: KafkaMessage[]; consumer: Consumer };

  constructor(private readonly organisationId: number) {}

  /** This organisation's events seen so far, in the order they were read. */
  get events(): CollectedEvent[] {
    return (this.collected?.messages ?? [])
      .map((message) => JSON.parse(message.value!.toString()) as CollectedEvent)
      .filter((event) => event.organisation_id === this.organisationId);
  }

  async start(): Promise<void> {
    this.collected = await collectTopicFromNow(testKafka(), process.env.KAFKA_TOPIC ?? 'partner.events.v1');
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
    await this.collected?.consumer.disconnect();
  }
}
