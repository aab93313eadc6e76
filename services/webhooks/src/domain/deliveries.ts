/**
 * Live deliveries, from a Kafka message to a receiver's 2xx:
 *
 * 1. receive: a chunk of messages is stored once (the event id dedupes
 *    redelivered messages), and the same statement routes attempt 1 of
 *    each event to every enabled live endpoint of its organisation
 *    subscribed to its type that has no attempt 1 of it yet (D373). The
 *    consumer sends those attempts itself, from the chunk in hand, in the
 *    sender pool's slots ahead of any claim. A success is written once,
 *    already succeeded, with others (group commit). A failure, and a send
 *    still on the wire after `routedSendBudgetMs`, is written `sending`
 *    under this process's lease and finishes as a claimed attempt does;
 *    one still waiting for a slot is withdrawn and written `scheduled` for
 *    the drain. Only then are the Kafka offsets committed,
 *    so a process that dies in between reads the chunk again, finds the
 *    events stored and routes them again to whatever has no attempt row:
 *    sent again, at least once.
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
import { deliveryHeaders, inStoredContext, inTransaction, type ConsumedMessage, type Logger, type Pool, type TraceCarrier } from '@partner-api/shared';
import type { ReceiverClient } from '../adapters/receiver-client';
import type { ReceiverResponse } from '../adapters/receiver-client';
import type { ClaimedDelivery, DeliveryRepository, ReceivedEvent, RoutedAttempt, RoutedAttemptRow, RoutedSuccess, SucceededAttempt } from '../storage/delivery-repository';
import type { DisableNoticeRepository } from '../storage/disable-notice-repository';
import type { EndpointRepository } from '../storage/endpoint-repository';
import { BatchWriter } from './batch-writer';
import { deliveryOutcome, type DeliveryObserver } from './delivery-observer';
import { signingSecrets } from './signing-secrets';
import { disableReason } from './endpoint-health';
import { nextAttemptAt, type RetrySchedule } from './retry-schedule';
import { SenderPool, type HandedSend } from './sender-pool';

export interface DeliveryOptions {
  /** Attempts one process has on the wire at once. */
  concurrency: number;
  /** How long a claimed attempt is this sender's before another may take it over. */
  leaseMs: number;
  /** How long a success waits for others to be written with it (BatchWriter's linger). */
  successLingerMs?: number;
  /**
   * How long a consumer waits for the attempts it routed before it writes
   * what is still on the wire as leased rows and lets its chunk go (D373);
   * 0 sends none itself, every attempt is written `scheduled` for the claims.
   */
  routedSendBudgetMs?: number;
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

/** An attempt 1 routed at the store, with what its send needs; no row until its outcome. */
type RoutedDelivery = Omit<ClaimedDelivery, 'id'>;

/** A routed attempt handed to the sender pool, and its answer once it came. */
interface RoutedSend {
  readonly delivery: RoutedDelivery;
  readonly send: HandedSend<ReceiverResponse>;
  /** When it took its slot and began. */
  readonly sentAt: Date | undefined;
  response?: ReceiverResponse;
}

export class Deliveries {
  private readonly senders: SenderPool<ClaimedDelivery>;
  private readonly successes: BatchWriter<SucceededAttempt>;
  private readonly routedSuccesses: BatchWriter<RoutedSuccess>;

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
    this.routedSuccesses = new BatchWriter((attempts) => this.deliveries.recordRoutedSuccesses(attempts), { lingerMs: options.successLingerMs });
  }

  /**
   * Messages of the events topic: stored, routed and sent (1. above).
   * Resolves once every attempt they route has a row or is being written
   * with its outcome; returns how many it left `scheduled` for the drain.
   */
  async receive(messages: ConsumedMessage[]): Promise<number> {
    const events = messages.flatMap(({ value, traceContext }) => {
      const event = parseReceivedEvent(value, traceContext);
      // A message that is not an event must not stop the partition behind it.
      if (!event) this.logger.error({ bytes: value.length }, 'skipped a message that is not a domain event');
      return event ? [event] : [];
    });
    if (events.length === 0) return 0;
    // Test-mode events route nowhere (test endpoints get only test sends).
    const routes = await this.deliveries.storeAndRoute(events);
    if (routes.length === 0) return 0;
    const byId = new Map(events.map((event) => [event.id, event]));
    const deliveries = routes.map((route) => routedDelivery(route, byId.get(route.event_id)!));
    const budgetMs = this.options.routedSendBudgetMs ?? 0;
    if (budgetMs === 0) return this.leaveToClaims(deliveries);

    const sends = deliveries.map((delivery) => this.sendRouted(delivery));
    await settledWithin(sends.map((entry) => entry.send.result), budgetMs);
    const succeeded = sends.filter((entry) => entry.response?.ok);
    // A failure and a send still on the wire get a leased row now, and their outcome is recorded against it afterwards.
    const handedOver = sends.filter((entry) => (entry.response && !entry.response.ok) || (!entry.response && entry.send.started));
    // Withdrawn before they began: the claims send them.
    const waiting = sends.filter((entry) => !entry.response && !entry.send.started && entry.send.withdraw());
    const [, , scheduled] = await Promise.all([
      Promise.all(succeeded.map((entry) => this.recordRoutedSuccess(entry))),
      this.handOver(handedOver),
      this.leaveToClaims(waiting.map((entry) => entry.delivery)),
    ]);
    return scheduled;
  }

  /** Hands one routed attempt to the pool; the entry notes when it began and its answer once it comes. */
  private sendRouted(delivery: RoutedDelivery): RoutedSend {
    const began: { sentAt?: Date } = {};
    // The pool may begin it at once, before this returns: what it notes goes on `began`, read through the entry.
    const send = this.senders.sendNow(() => {
      began.sentAt = this.clock();
      return this.post(delivery);
    });
    const entry: RoutedSend = {
      delivery,
      send,
      get sentAt() {
        return began.sentAt;
      },
    };
    send.result.then((response) => (entry.response = response)).catch(() => undefined);
    return entry;
  }

  /** Routed attempts written `scheduled` and due now, for the drain's claims to send; returns how many. */
  private async leaveToClaims(deliveries: RoutedDelivery[]): Promise<number> {
    if (deliveries.length === 0) return 0;
    const now = this.clock();
    return (await this.deliveries.writeRouted(this.pool, deliveries.map((delivery) => attemptRow(delivery, now)), null)).size;
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
    await Promise.all([this.successes.settled(), this.routedSuccesses.settled()]);
  }

  /** A claimed attempt: sent and its outcome recorded against its row, in its slot. */
  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    if (!delivery.enabled) {
      await inTransaction(this.pool, (client) => this.deliveries.cancelScheduled(client, delivery.endpoint_id));
      return;
    }
    await this.record(delivery, await this.post(delivery));
  }

  /** Signs and POSTs one attempt, traced under the context its event arrived in. */
  private post(delivery: RoutedDelivery): Promise<ReceiverResponse> {
    const attributes = { 'webhook.event.id': delivery.event_id, 'webhook.event.type': delivery.event_type, 'webhook.endpoint.id': delivery.endpoint_id, 'webhook.attempt': delivery.attempt };
    return inStoredContext(delivery.trace_context, `deliver ${delivery.event_type}`, attributes, async (span) => {
      const sentAt = this.clock();
      const headers = deliveryHeaders({ id: delivery.event_id, type: delivery.event_type }, delivery.attempt, delivery.payload, signingSecrets(delivery, sentAt), sentAt);
      const response = await this.receivers.post(delivery.url, headers, delivery.payload);
      this.options.observer?.attempted(deliveryOutcome(response), response.durationMs);
      if (!response.ok) span.failed(response.error ?? 'failed');
      return response;
    });
  }

  /** A claimed attempt's outcome, against its row. */
  private async record(delivery: ClaimedDelivery, response: ReceiverResponse): Promise<void> {
    if (response.ok) {
      // Not awaited: the slot takes the next attempt while this one is written with others.
      this.successes
        .add({ id: delivery.id, responseStatus: response.responseStatus!, durationMs: response.durationMs })
        .catch((error: unknown) => this.logger.error({ err: error, delivery_id: delivery.id }, 'a delivered attempt could not be recorded; it will be sent again'));
      return;
    }
    await this.recordFailure(delivery, response);
  }

  /** A routed attempt answered 2xx, written as its row with others; resolves once it is (the chunk's offsets wait for it). */
  private async recordRoutedSuccess({ delivery, sentAt, response }: RoutedSend): Promise<void> {
    await this.routedSuccesses.add({
      endpoint_id: delivery.endpoint_id,
      event_id: delivery.event_id,
      event_type: delivery.event_type,
      sent_at: sentAt!,
      responseStatus: response!.responseStatus!,
      durationMs: response!.durationMs,
    });
  }

  /**
   * Routed attempts that failed, or are still on the wire when the budget
   * ran out: written `sending` under this process's lease in one
   * statement, so their chunk can be committed without waiting for a
   * failure's transaction. Each outcome is then recorded against its row as
   * a claimed attempt's is, a failure in a slot of the pool (as a claimed
   * one's is in its own), so recording failures never outgrows the pool. A
   * process that dies meanwhile leaves the lease to run out.
   */
  private async handOver(sends: RoutedSend[]): Promise<void> {
    if (sends.length === 0) return;
    const ids = await this.deliveries.writeRouted(this.pool, sends.map((entry) => attemptRow(entry.delivery, entry.sentAt!)), this.options.leaseMs);
    for (const { delivery, send } of sends) {
      const id = ids.get(`${delivery.endpoint_id}:${delivery.event_id}`);
      // Written meanwhile by another process that read the same chunk: its outcome there is the one recorded.
      if (id === undefined) continue;
      const claimed: ClaimedDelivery = { ...delivery, id };
      send.result
        .then((response) => (response.ok ? this.record(claimed, response) : this.senders.sendNow(() => this.recordFailure(claimed, response)).result))
        .catch((error: unknown) => this.logger.error({ err: error, delivery_id: id }, 'a delivery attempt could not be recorded; its lease will run out and it will be sent again'));
    }
  }

  /**
   * A failed attempt, in its own transaction: marked failed and its retry
   * scheduled, or its endpoint disabled by the health rules.
   */
  private async recordFailure(delivery: ClaimedDelivery, response: ReceiverResponse): Promise<void> {
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

/**
 * What sending a routed attempt needs: the route as read at the store, and
 * the event as it came. Fields named one by one: spreading a driver's row
 * copies it key by key (2.5 % of the process in a burst).
 */
function routedDelivery(route: RoutedAttempt, event: ReceivedEvent): RoutedDelivery {
  return {
    endpoint_id: route.endpoint_id,
    event_id: route.event_id,
    url: route.url,
    secret: route.secret,
    previous_secret: route.previous_secret,
    previous_secret_expires_at: route.previous_secret_expires_at,
    event_type: event.type,
    attempt: 1,
    first_attempt: 1,
    replay_id: null,
    resend: false,
    enabled: true,
    payload: event.payload,
    trace_context: event.traceContext,
  };
}

function attemptRow(delivery: RoutedDelivery, sentAt: Date): RoutedAttemptRow {
  return { endpoint_id: delivery.endpoint_id, event_id: delivery.event_id, event_type: delivery.event_type, sent_at: sentAt };
}

/** Resolves when every promise has settled or `ms` have passed, whichever comes first. */
async function settledWithin(promises: Promise<unknown>[], ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([Promise.allSettled(promises), new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
