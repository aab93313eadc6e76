/**
 * Live deliveries, from a Kafka message to a receiver's 2xx:
 *
 * 1. receive: a chunk of messages is stored once (the event id dedupes
 *    redelivered messages) and attempt 1 is written for every enabled live
 *    endpoint of each event's organisation subscribed to its type, in one
 *    transaction. Only then are the Kafka offsets committed, so a process
 *    that dies in between reads the messages again and finds them stored.
 * 2. drain: a rolling pool of senders claims due attempts in bulk with a
 *    lease (a second claim on its way while the first is, each for slots
 *    free), signs and POSTs each, and refills a slot as soon as its POST
 *    is answered. A success is recorded with the endpoint's health in one
 *    statement shared with every other success that finished meanwhile or
 *    within a few milliseconds after (group commit with a linger), after
 *    its slot is free again. A failure is recorded
 *    in its own transaction, in its slot: it schedules the next attempt by
 *    the retry schedule, unless it was the last or the health rules disable
 *    the endpoint (which cancels what it still had scheduled, and writes
 *    the notice the organisation's owners and admins are emailed from).
 *
 * At least once: a sender that dies mid-POST, or before its success was
 * written, leaves its lease to run out and the attempt is sent again;
 * receivers dedupe on Service-Event-Id.
 *
 * Traces: each attempt is a span under the context the event arrived in
 * (kept with the event), so the POST, retries included, is in the trace of
 * the request whose state change wrote the event (D150).
 */
import { inStoredContext, inTransaction, type ConsumedMessage, type Logger, type Pool, type TraceCarrier } from '@partner-api/shared';
import type { ReceiverClient } from '../adapters/receiver-client';
import type { ClaimedDelivery, DeliveryRepository, ReceivedEvent, SucceededAttempt } from '../storage/delivery-repository';
import type { DisableNoticeRepository } from '../storage/disable-notice-repository';
import type { EndpointRepository } from '../storage/endpoint-repository';
import { BatchWriter } from './batch-writer';
import { deliveryOutcome, type DeliveryObserver } from './delivery-observer';
import { deliveryHeaders, signingSecrets } from './delivery-request';
import { disableReason } from './endpoint-health';
import { nextAttemptAt, type RetrySchedule } from './retry-schedule';
import { SenderPool } from './sender-pool';

export interface DeliveryOptions {
  /** Attempts one process has on the wire at once. */
  concurrency: number;
  /** How long a claimed attempt is this sender's before another may take it over. */
  leaseMs: number;
  /** How long a success waits for others to be written with it (BatchWriter's linger). */
  successLingerMs?: number;
  /** Told of every attempt's outcome and every endpoint disabled (the metrics). */
  observer?: DeliveryObserver;
}

/** Reads the routing fields of an event body; null for anything that is not one of our events. */
export function parseReceivedEvent(payload: string, traceContext: TraceCarrier = {}): ReceivedEvent | null {
  let body: unknown;
  try {
    body = JSON.parse(payload);
  } catch {
    return null;
  }
  const event = body as Record<string, unknown> | null;
  if (!event || typeof event !== 'object') return null;
  const { id, type, organisation_id: organisationId, livemode, created } = event;
  if (typeof id !== 'string' || !id.startsWith('evt_') || typeof type !== 'string' || typeof livemode !== 'boolean') return null;
  if (typeof organisationId !== 'number' || !Number.isSafeInteger(organisationId)) return null;
  // The feed's 30 days count from `created`; a body without one counts from now.
  const createdAt = typeof created === 'number' && Number.isSafeInteger(created) && created > 0 ? new Date(created * 1000) : new Date();
  return { id, type, organisationId, livemode, createdAt, payload, traceContext };
}

export class Deliveries {
  private readonly senders: SenderPool<ClaimedDelivery>;
  private readonly successes: BatchWriter<SucceededAttempt>;

  constructor(
    private readonly pool: Pool,
    private readonly deliveries: DeliveryRepository,
    private readonly endpoints: EndpointRepository,
    private readonly notices: DisableNoticeRepository,
    private readonly receivers: ReceiverClient,
    private readonly schedule: RetrySchedule,
    private readonly options: DeliveryOptions,
    private readonly logger: Logger,
    private readonly clock: () => Date = () => new Date(),
  ) {
    this.senders = new SenderPool(
      options.concurrency,
      (limit) => this.deliveries.claimDue(limit, this.options.leaseMs),
      (delivery) => this.attempt(delivery),
      // The attempt stays claimed; its lease runs out and it is sent again.
      (error) => this.logger.error({ err: error }, 'a delivery attempt could not be recorded'),
    );
    this.successes = new BatchWriter((attempts) => this.deliveries.recordSuccesses(attempts), { lingerMs: options.successLingerMs });
  }

  /** Messages of the events topic, stored and fanned out in one transaction; returns how many deliveries they scheduled. */
  async receive(messages: ConsumedMessage[]): Promise<number> {
    const events = messages.flatMap(({ value, traceContext }) => {
      const event = parseReceivedEvent(value, traceContext);
      // A message that is not an event must not stop the partition behind it.
      if (!event) this.logger.error({ bytes: value.length }, 'skipped a message that is not a domain event');
      return event ? [event] : [];
    });
    if (events.length === 0) return 0;
    // Only events stored just now fan out; test-mode events never do (test endpoints get only test sends).
    return inTransaction(this.pool, async (client) => this.deliveries.fanOut(client, await this.deliveries.storeEvents(client, events)));
  }

  /**
   * Sends until nothing is due; resolves once every attempt it sent is
   * answered (a failure recorded). Successes are still being written
   * together meanwhile (see recorded): the next drain need not wait for
   * them, their rows are `sending` under a lease no other claim takes.
   */
  async drain(): Promise<void> {
    await this.senders.drain();
  }

  /** Attempts have just been scheduled: a drain in progress claims them; false when none is running (start one). */
  wake(): boolean {
    return this.senders.wake();
  }

  /** Resolves once every success so far is written (shutdown waits for this). */
  async recorded(): Promise<void> {
    await this.successes.settled();
  }

  private attempt(delivery: ClaimedDelivery): Promise<void> {
    const attributes = { 'webhook.event.id': delivery.event_id, 'webhook.event.type': delivery.event_type, 'webhook.endpoint.id': delivery.endpoint_id, 'webhook.attempt': delivery.attempt };
    return inStoredContext(delivery.trace_context, `deliver ${delivery.event_type}`, attributes, (span) => this.send(delivery, span.failed));
  }

  /** Sends one attempt and records its outcome; `failed` hears why a POST was not a success. */
  private async send(delivery: ClaimedDelivery, failed: (error: string) => void): Promise<void> {
    if (!delivery.enabled) {
      await inTransaction(this.pool, (client) => this.deliveries.cancelScheduled(client, delivery.endpoint_id));
      return;
    }
    const sentAt = this.clock();
    const headers = deliveryHeaders({ id: delivery.event_id, type: delivery.event_type }, delivery.attempt, delivery.payload, signingSecrets(delivery, sentAt), sentAt);
    const response = await this.receivers.post(delivery.url, headers, delivery.payload);
    this.options.observer?.attempted(deliveryOutcome(response), response.durationMs);
    if (response.ok) {
      // Not awaited: the slot takes the next attempt while this one is written with others.
      this.successes
        .add({ id: delivery.id, responseStatus: response.responseStatus!, durationMs: response.durationMs })
        .catch((error: unknown) => this.logger.error({ err: error, delivery_id: delivery.id }, 'a delivered attempt could not be recorded; it will be sent again'));
      return;
    }
    failed(response.error ?? 'failed');

    const disabled = await inTransaction(this.pool, async (client) => {
      // The endpoint row before the delivery row (see lockForFailure): failures of one endpoint never deadlock.
      const locked = await this.endpoints.lockForFailure(client, delivery.endpoint_id);
      if (!locked) return null;
      // Cancelled (endpoint paused or deleted) while it was being sent: nothing more to record.
      if (!(await this.deliveries.markFailed(client, delivery.id, response))) return null;
      // Paused or disabled while it was being sent: recorded, nothing more scheduled.
      if (!locked.enabled) return null;
      const endpoint = await this.endpoints.recordFailure(client, delivery.endpoint_id);
      const reason = endpoint ? disableReason(endpoint, this.clock()) : null;
      if (reason) {
        // The notice commits with the disable or not at all: exactly one per disable (D307).
        if (await this.endpoints.disable(client, delivery.endpoint_id, reason)) await this.notices.record(client, delivery.endpoint_id);
        await this.deliveries.cancelScheduled(client, delivery.endpoint_id);
        return { reason, organisationId: endpoint!.organisation_id };
      }
      // A replay's round gets the whole schedule anew, counted from its own first attempt.
      const next = nextAttemptAt(this.schedule, delivery.attempt - delivery.first_attempt + 1, this.clock());
      if (next) await this.deliveries.scheduleRetry(client, delivery, next);
      return null;
    });
    // Counted and told once the disable is committed: a rolled-back one never happened.
    if (disabled) {
      this.options.observer?.endpointDisabled(disabled.reason);
      this.logger.warn({ organisation_id: disabled.organisationId, endpoint_id: delivery.endpoint_id, reason: disabled.reason }, 'webhook endpoint disabled');
    }
  }
}
