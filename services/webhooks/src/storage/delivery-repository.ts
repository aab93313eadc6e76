/** Received events and delivery attempts in the webhooks schema. */
import type { Pool, PoolClient, TraceCarrier } from '@partner-api/shared';
import type { FailureReason } from '../domain/failure-reasons';

export type DeliveryStatus = 'scheduled' | 'sending' | 'succeeded' | 'failed' | 'cancelled';

export interface DeliveryRow {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  attempt: number;
  manual: boolean;
  status: DeliveryStatus;
  due_at: Date;
  response_status: number | null;
  duration_ms: number;
  error: string | null;
  failure_reason: FailureReason | null;
  replay_id: string | null;
  /** The attempt this attempt's round began at. */
  first_attempt: number;
  /** The round was queued by a resend from the dashboard. */
  resend: boolean;
  next_retry_at: Date | null;
  /** When the attempt was taken to be sent; null while it waits. */
  sent_at: Date | null;
  created_at: Date;
}

/** A log row with its endpoint's URL (the log can span endpoints). */
export type LoggedDelivery = DeliveryRow & { endpoint_url: string };

/** Which rows a delivery log page holds: always one organisation's, in the modes the caller may see. */
export interface DeliveryLogFilter {
  organisationId: number;
  modes: readonly string[];
  endpointId?: string | undefined;
  eventId?: string | undefined;
  statuses?: readonly DeliveryStatus[] | undefined;
  beforeId?: string | undefined;
  limit: number;
}

/** An endpoint's attempts with an outcome since a time. */
export interface AttemptStats {
  attempts: number;
  succeeded: number;
  /** null without attempts. */
  p95_duration_ms: number | null;
}

/** A claimed attempt with what sending it needs: the receiver, its secrets and the event's exact bytes. */
export interface ClaimedDelivery {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  attempt: number;
  /** The attempt this round of retries began at: 1, or a replay's first attempt. */
  first_attempt: number;
  replay_id: string | null;
  resend: boolean;
  url: string;
  enabled: boolean;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  payload: string;
  /** The context the event arrived in: each attempt is traced under it. */
  trace_context: TraceCarrier;
}

export interface ReceivedEvent {
  id: string;
  organisationId: number;
  type: string;
  livemode: boolean;
  /** The event's `created`. */
  createdAt: Date;
  payload: string;
  traceContext: TraceCarrier;
}

export interface AttemptOutcome {
  succeeded: boolean;
  responseStatus: number | null;
  durationMs: number;
  error: string | null;
  failureReason: FailureReason | null;
}

/** Attempt 1 of an event for one endpoint, routed when the event was stored, with what sending it needs (no row yet, D373). */
export interface RoutedAttempt {
  endpoint_id: string;
  event_id: string;
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
}

/** A routed attempt 1 as it is written: its event's type and when it was sent. */
export type RoutedAttemptRow = Pick<RoutedAttempt, 'endpoint_id' | 'event_id'> & { event_type: string; sent_at: Date };

/** A routed attempt 1 answered 2xx, to be recorded with others (`recordRoutedSuccesses`). */
export interface RoutedSuccess extends RoutedAttemptRow {
  responseStatus: number;
  durationMs: number;
}

/** One 2xx answer, to be recorded with others (`recordSuccesses`). */
export interface SucceededAttempt {
  id: string;
  responseStatus: number;
  durationMs: number;
}

/**
 * After a CTE `done` returning the endpoint of each success: each endpoint's
 * failure run ends. Its row is written only when that changes something or a
 * second has passed since its last success (the API shows seconds), so
 * successes do not queue on its lock.
 */
const HEAL_ENDPOINTS = `UPDATE endpoints e SET consecutive_failures = 0, failing_since = NULL, last_success_at = now(), updated_at = now()
         FROM (SELECT DISTINCT endpoint_id FROM done) healed
        WHERE e.id = healed.endpoint_id
          AND (e.consecutive_failures > 0 OR e.last_success_at IS NULL OR e.last_success_at < date_trunc('second', now()))`;

export class DeliveryRepository {
  constructor(private readonly pool: Pool) {}

  /**
   * Stores the events not stored yet, and reads in the same statement where
   * attempt 1 of each live event goes: every enabled live endpoint of its
   * organisation subscribed to its type that has no attempt 1 of it yet, with
   * its URL and secrets as they are now. An event read again (a consumer that
   * died before its chunk's offsets were committed) is routed again to
   * whatever it was not recorded for; one already stored and recorded routes
   * nowhere. Routing is joined from the events as given, not read back from
   * the events table (D363).
   */
  async storeAndRoute(events: ReceivedEvent[]): Promise<RoutedAttempt[]> {
    const { rows } = await this.pool.query<RoutedAttempt>({
      name: 'webhooks.store-and-route',
      text: `WITH stored AS (
         INSERT INTO events (id, organisation_id, type, livemode, payload, trace_context, created_at)
         SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::boolean[], $5::text[], $6::jsonb[], $7::timestamptz[])
         ON CONFLICT (id) DO NOTHING)
       SELECT e.id AS endpoint_id, ev.id AS event_id, e.url, e.secret, e.previous_secret, e.previous_secret_expires_at
         FROM (SELECT DISTINCT ON (id) id, type, organisation_id FROM unnest($1::text[], $3::text[], $2::bigint[], $4::boolean[]) AS ev(id, type, organisation_id, livemode) WHERE livemode) ev
         JOIN endpoints e ON e.organisation_id = ev.organisation_id AND e.mode = 'live' AND e.enabled
                         AND (ev.type = ANY (e.event_types) OR '*' = ANY (e.event_types))
        WHERE NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.endpoint_id = e.id AND d.event_id = ev.id AND d.attempt = 1 AND NOT d.manual)`,
      values: [
        events.map((e) => e.id),
        events.map((e) => e.organisationId),
        events.map((e) => e.type),
        events.map((e) => e.livemode),
        events.map((e) => e.payload),
        events.map((e) => JSON.stringify(e.traceContext)),
        events.map((e) => e.createdAt),
      ],
    });
    return rows;
  }

  /**
   * Routed attempts written as rows: `scheduled` and due now for the claims
   * (`leaseMs` null), or `sending` under this process's lease for a send
   * already on the wire. One written meanwhile by another process (the same
   * chunk read there too) is left as it is and not returned. Returns each
   * written row's id by `endpoint_id:event_id`.
   */
  async writeRouted(client: Pool | PoolClient, attempts: RoutedAttemptRow[], leaseMs: number | null): Promise<Map<string, string>> {
    const { rows } = await client.query<{ id: string; endpoint_id: string; event_id: string }>({
      name: 'webhooks.write-routed',
      text: `INSERT INTO deliveries (endpoint_id, event_id, event_type, attempt, status, due_at, sent_at, lease_until)
       SELECT a.endpoint_id, a.event_id, a.event_type, 1,
              CASE WHEN $5::int IS NULL THEN 'scheduled' ELSE 'sending' END,
              CASE WHEN $5::int IS NULL THEN now() ELSE a.sent_at END,
              CASE WHEN $5::int IS NULL THEN NULL ELSE a.sent_at END,
              now() + $5::int * interval '1 millisecond'
         FROM unnest($1::bigint[], $2::text[], $3::text[], $4::timestamptz[]) AS a(endpoint_id, event_id, event_type, sent_at)
         JOIN endpoints e ON e.id = a.endpoint_id
       ON CONFLICT (endpoint_id, event_id, attempt) WHERE NOT manual DO NOTHING
       RETURNING id, endpoint_id, event_id`,
      values: [attempts.map((a) => a.endpoint_id), attempts.map((a) => a.event_id), attempts.map((a) => a.event_type), attempts.map((a) => a.sent_at), leaseMs],
    });
    return new Map(rows.map((row) => [`${row.endpoint_id}:${row.event_id}`, row.id]));
  }

  /**
   * Routed attempts answered 2xx, written once, already succeeded, in one
   * statement however many, with each endpoint's failure run ended as
   * `recordSuccesses` does. An attempt written meanwhile by another process,
   * or whose endpoint was deleted, is left out.
   */
  async recordRoutedSuccesses(successes: RoutedSuccess[]): Promise<void> {
    await this.pool.query({
      name: 'webhooks.record-routed-successes',
      text: `WITH done AS (
         INSERT INTO deliveries (endpoint_id, event_id, event_type, attempt, status, due_at, sent_at, response_status, duration_ms)
         SELECT s.endpoint_id, s.event_id, s.event_type, 1, 'succeeded', s.sent_at, s.sent_at, s.response_status, s.duration_ms
           FROM unnest($1::bigint[], $2::text[], $3::text[], $4::timestamptz[], $5::int[], $6::int[]) AS s(endpoint_id, event_id, event_type, sent_at, response_status, duration_ms)
           JOIN endpoints e ON e.id = s.endpoint_id
         ON CONFLICT (endpoint_id, event_id, attempt) WHERE NOT manual DO NOTHING
         RETURNING endpoint_id)
       ${HEAL_ENDPOINTS}`,
      values: [
        successes.map((s) => s.endpoint_id),
        successes.map((s) => s.event_id),
        successes.map((s) => s.event_type),
        successes.map((s) => s.sent_at),
        successes.map((s) => s.responseStatus),
        successes.map((s) => s.durationMs),
      ],
    });
  }

  /**
   * Claims due attempts, then attempts whose sender's lease ran out, for
   * this process: marked `sending` with a lease, skipping rows another
   * process holds. Each kind is read as a range of its own index that ends
   * at now(), so a claim costs what it takes, not what is in flight or
   * scheduled for later (D364).
   */
  async claimDue(limit: number, leaseMs: number): Promise<ClaimedDelivery[]> {
    const { rows } = await this.pool.query<ClaimedDelivery>({
      name: 'webhooks.claim-due-or-lapsed',
      text: `WITH due AS (
         SELECT id FROM deliveries WHERE status = 'scheduled' AND due_at <= now()
          ORDER BY due_at LIMIT $1
          FOR UPDATE SKIP LOCKED),
       lapsed AS (
         SELECT id FROM deliveries WHERE status = 'sending' AND lease_until < now()
          ORDER BY lease_until LIMIT $1
          FOR UPDATE SKIP LOCKED),
       claimed AS (
         SELECT id FROM due UNION ALL SELECT id FROM lapsed LIMIT $1)
       UPDATE deliveries d
          SET status = 'sending', lease_until = now() + $2 * interval '1 millisecond', sent_at = now(), updated_at = now()
         FROM claimed, endpoints e, events ev
        WHERE d.id = claimed.id AND e.id = d.endpoint_id AND ev.id = d.event_id
       RETURNING d.id, d.endpoint_id, d.event_id, d.event_type, d.attempt, d.first_attempt, d.replay_id, d.resend,
                 e.url, e.enabled, e.secret, e.previous_secret, e.previous_secret_expires_at, ev.payload, ev.trace_context`,
      values: [limit, leaseMs],
    });
    return rows;
  }

  /** A failed attempt's result; false when the row is no longer this sender's (cancelled or deleted meanwhile). */
  async markFailed(client: PoolClient, id: string, outcome: Omit<AttemptOutcome, 'succeeded'>): Promise<boolean> {
    const { rowCount } = await client.query(
      `UPDATE deliveries SET status = 'failed', response_status = $2, duration_ms = $3, error = $4, failure_reason = $5, lease_until = NULL, updated_at = now()
        WHERE id = $1 AND status = 'sending'`,
      [id, outcome.responseStatus, outcome.durationMs, outcome.error, outcome.failureReason],
    );
    return (rowCount ?? 0) > 0;
  }

  /**
   * 2xx answers, in one statement however many: the attempts are marked
   * succeeded and each endpoint's failure run ends. An endpoint row is
   * written only when that changes something or a second has passed since
   * its last success (the API shows seconds), so successes do not queue on
   * its lock. An attempt no longer `sending` (cancelled or deleted
   * meanwhile) is left as it is.
   */
  async recordSuccesses(successes: SucceededAttempt[]): Promise<void> {
    await this.pool.query({
      name: 'webhooks.record-successes',
      text: `WITH done AS (
         UPDATE deliveries d SET status = 'succeeded', response_status = s.response_status, duration_ms = s.duration_ms, error = NULL, failure_reason = NULL, lease_until = NULL, updated_at = now()
           FROM unnest($1::bigint[], $2::int[], $3::int[]) AS s(id, response_status, duration_ms)
          WHERE d.id = s.id AND d.status = 'sending'
          RETURNING d.endpoint_id)
       ${HEAL_ENDPOINTS}`,
      values: [successes.map((s) => s.id), successes.map((s) => s.responseStatus), successes.map((s) => s.durationMs)],
    });
  }

  /** The next attempt after a failed one, due at `dueAt` (also noted on the failed attempt as its next_retry_at). */
  async scheduleRetry(
    client: PoolClient,
    failed: Pick<ClaimedDelivery, 'id' | 'endpoint_id' | 'event_id' | 'event_type' | 'attempt' | 'first_attempt' | 'replay_id' | 'resend'>,
    dueAt: Date,
  ): Promise<void> {
    await client.query('UPDATE deliveries SET next_retry_at = $2 WHERE id = $1', [failed.id, dueAt]);
    // The retry belongs to the same round (and replay or resend) as the attempt it follows.
    await client.query(
      `INSERT INTO deliveries (endpoint_id, event_id, event_type, attempt, first_attempt, replay_id, resend, status, due_at) VALUES ($1, $2, $3, $4, $5, $6, $7, 'scheduled', $8)
       ON CONFLICT (endpoint_id, event_id, attempt) WHERE NOT manual DO NOTHING`,
      [failed.endpoint_id, failed.event_id, failed.event_type, failed.attempt + 1, failed.first_attempt, failed.replay_id, failed.resend, dueAt],
    );
  }

  /**
   * Drops what an endpoint still had to send (it was paused or disabled).
   * Rows another transaction holds are skipped: their success is being
   * recorded right now (that statement then waits for the endpoint row this
   * caller holds, so waiting for it here would deadlock), or they are being
   * claimed, and a claimed attempt of a disabled endpoint is cancelled when
   * it is sent.
   */
  async cancelScheduled(client: PoolClient, endpointId: string): Promise<void> {
    await client.query(
      `UPDATE deliveries SET status = 'cancelled', lease_until = NULL, updated_at = now()
        WHERE id IN (SELECT id FROM deliveries WHERE endpoint_id = $1 AND status IN ('scheduled', 'sending') FOR UPDATE SKIP LOCKED)`,
      [endpointId],
    );
  }

  /** A test send, recorded once it is over: never scheduled, never retried. */
  async recordManual(endpointId: string, eventId: string, eventType: string, outcome: AttemptOutcome): Promise<DeliveryRow> {
    const { rows } = await this.pool.query<DeliveryRow>(
      `INSERT INTO deliveries (endpoint_id, event_id, event_type, attempt, manual, status, due_at, sent_at, response_status, duration_ms, error, failure_reason)
       VALUES ($1, $2, $3, 1, true, $4, now(), now() - $6 * interval '1 millisecond', $5, $6, $7, $8) RETURNING *`,
      [endpointId, eventId, eventType, outcome.succeeded ? 'succeeded' : 'failed', outcome.responseStatus, outcome.durationMs, outcome.error, outcome.failureReason],
    );
    return rows[0]!;
  }

  /** A delivery log page, newest first, from before `beforeId`: one endpoint's, one event's, or both; optionally only some statuses. */
  async list(filter: DeliveryLogFilter): Promise<LoggedDelivery[]> {
    const { rows } = await this.pool.query<LoggedDelivery>(
      `SELECT d.*, e.url AS endpoint_url FROM deliveries d JOIN endpoints e ON e.id = d.endpoint_id
        WHERE e.organisation_id = $1 AND e.mode = ANY ($2::text[])
          AND ($3::bigint IS NULL OR d.endpoint_id = $3) AND ($4::text IS NULL OR d.event_id = $4)
          AND ($5::bigint IS NULL OR d.id < $5) AND ($6::text[] IS NULL OR d.status = ANY ($6))
        ORDER BY d.id DESC LIMIT $7`,
      [filter.organisationId, filter.modes, filter.endpointId ?? null, filter.eventId ?? null, filter.beforeId ?? null, filter.statuses ?? null, filter.limit],
    );
    return rows;
  }

  /**
   * The endpoint's attempts sent since `since` that have an outcome (test
   * sends, which do not count towards health, left out), and the 95th
   * percentile of their durations: an observed duration, not an interpolated one.
   */
  async attemptStats(endpointId: string, since: Date): Promise<AttemptStats> {
    const { rows } = await this.pool.query<AttemptStats>(
      `SELECT count(*)::int AS attempts, (count(*) FILTER (WHERE status = 'succeeded'))::int AS succeeded,
              percentile_disc(0.95) WITHIN GROUP (ORDER BY duration_ms) AS p95_duration_ms
         FROM deliveries
        WHERE endpoint_id = $1 AND sent_at >= $2 AND NOT manual AND status IN ('succeeded', 'failed')`,
      [endpointId, since],
    );
    return rows[0]!;
  }

  /** One delivery of the endpoint, and whether its event is still stored (events go after 30 days). */
  async findForEndpoint(client: PoolClient, endpointId: string, id: bigint): Promise<(DeliveryRow & { event_stored: boolean }) | undefined> {
    const { rows } = await client.query<DeliveryRow & { event_stored: boolean }>(
      'SELECT d.*, EXISTS (SELECT 1 FROM events ev WHERE ev.id = d.event_id) AS event_stored FROM deliveries d WHERE d.id = $2 AND d.endpoint_id = $1',
      [endpointId, id.toString()],
    );
    return rows[0];
  }

  /**
   * A resend of an event to an endpoint (the caller holds the endpoint's
   * row lock). When an attempt of it is already on its way, a scheduled one
   * is brought forward to now and returned, a sending one returned as it
   * is: never two beside each other. Otherwise a new round, due now,
   * continuing the event's attempt count; undefined when the event is no
   * longer stored (pruned meanwhile).
   */
  async queueResend(client: PoolClient, endpointId: string, eventId: string): Promise<DeliveryRow | undefined> {
    const { rows: onItsWay } = await client.query<DeliveryRow>(
      "SELECT * FROM deliveries WHERE endpoint_id = $1 AND event_id = $2 AND NOT manual AND status IN ('scheduled', 'sending') ORDER BY attempt DESC LIMIT 1",
      [endpointId, eventId],
    );
    const pending = onItsWay[0];
    if (pending) {
      // A row being claimed right now is skipped, not waited for: it is on its way anyway. A sending row is never locked here
      // (its success may be waiting for the endpoint row this caller holds, D211).
      const { rows: forward } = await client.query<DeliveryRow>(
        `UPDATE deliveries SET due_at = LEAST(due_at, now()), updated_at = now()
          WHERE id = (SELECT id FROM deliveries WHERE id = $1 AND status = 'scheduled' FOR UPDATE SKIP LOCKED) RETURNING *`,
        [pending.id],
      );
      // The failed attempt before it said when it would follow: now.
      if (forward[0]) await client.query('UPDATE deliveries SET next_retry_at = now() WHERE endpoint_id = $1 AND event_id = $2 AND attempt = $3 AND NOT manual AND next_retry_at > now()', [endpointId, eventId, pending.attempt - 1]);
      return forward[0] ?? pending;
    }
    const { rows } = await client.query<DeliveryRow>(
      `INSERT INTO deliveries (endpoint_id, event_id, event_type, attempt, first_attempt, resend, status, due_at)
       SELECT $1, ev.id, ev.type, next.attempt, next.attempt, true, 'scheduled', now()
         FROM events ev
         CROSS JOIN LATERAL (SELECT COALESCE(max(attempt), 0) + 1 AS attempt FROM deliveries WHERE endpoint_id = $1 AND event_id = ev.id AND NOT manual) next
        WHERE ev.id = $2
       RETURNING *`,
      [endpointId, eventId],
    );
    return rows[0];
  }
}
