/**
 * Queues the buyer's email of every completed order (D410). The orders
 * service writes `order.completed` to its outbox in the transaction that
 * completes the order, whatever the channel (API checkout sessions paid on
 * the hosted checkout, web, storefront, embed, waiting-list offers); this
 * consumer, in every tickets process, reads it from Kafka and writes one
 * `ticket_mails` row per order (the order id is the dedupe key, so a
 * re-read message queues nothing twice) before the offset is committed.
 * Test-mode events (`livemode` false) are never mailed: a test key's dry
 * run completes no order and issues nothing.
 */
import type { MailRepository } from '../storage/mail-repository';

interface OrderCompletedEvent {
  type: string;
  livemode: boolean;
  organisation_id: number;
  data: { object: { id: string; customer?: { email?: string | null; first_name?: string | null; last_name?: string | null } | null } };
}

export class OrderMailQueue {
  constructor(private readonly mails: MailRepository) {}

  /** Queues the mails of the chunk's completed orders; returns how many were new. */
  async queueFrom(messages: { value: string }[]): Promise<number> {
    let queued = 0;
    for (const { value } of messages) {
      const event = parse(value);
      if (!event || event.type !== 'order.completed' || event.livemode !== true) continue;
      const order = event.data.object;
      const customer = order.customer ?? {};
      const name = [customer.first_name, customer.last_name].filter(Boolean).join(' ') || null;
      // An order without an address still gets its row: it fails with the reason, for the dashboard.
      const isNew = await this.mails.queue({
        organisationId: event.organisation_id,
        kind: 'order',
        dedupeKey: `order:${order.id}`,
        orderId: order.id,
        recipient: (customer.email ?? '').trim(),
        recipientName: name,
      });
      if (isNew) queued += 1;
    }
    return queued;
  }
}

function parse(value: string): OrderCompletedEvent | undefined {
  try {
    const event = JSON.parse(value) as OrderCompletedEvent;
    return typeof event?.data?.object?.id === 'string' && Number.isSafeInteger(event.organisation_id) ? event : undefined;
  } catch {
    return undefined;
  }
}
