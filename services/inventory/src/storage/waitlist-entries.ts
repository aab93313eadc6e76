/**
 * The durable waiting lists (`waitlist_entries`). Every change to one
 * pool's list happens under that pool's advisory lock (lockPool), so joins
 * and the allocator's passes, in any process, see each other whole.
 */
import { randomUUID } from 'node:crypto';
import type { PoolClient } from '@partner-api/shared';
import type { EventRow } from './catalog-repository';
import type { Queryable } from './catalog-repository';

export interface EntryRow {
  id: string;
  organisation_id: string;
  event_id: string;
  pool_id: string;
  ticket_type_id: string;
  email: string;
  quantity: number;
  state: 'waiting' | 'offered' | 'purchased' | 'lapsed';
  hold_id: string | null;
  offered_quantity: number | null;
  offer_expires_at: Date | null;
  created_at: Date;
}

/** A claimed offer email, with what its message says. */
export interface DueOfferEmail {
  id: string;
  organisation_id: string;
  hold_id: string;
  email: string;
  offered_quantity: number;
  email_attempts: number;
  expires_at: Date;
  event_title: string;
  event_starts_at: Date;
  ticket_type_name: string;
}

/** An offer as the hosted checkout opens it. */
export interface OfferRow {
  organisation_id: string;
  event_id: string;
  pool_id: string;
  ticket_type_id: string;
  email: string;
  state: EntryRow['state'];
  offered_quantity: number;
  expires_at: Date;
}

/** An offer Redis has not taken yet, with its hold's expiry. */
export interface UntakenOffer {
  holdId: string;
  quantity: number;
  expiresAt: Date;
}

/** A pool with a live list, as the allocator's round reads it. */
export interface LiveList {
  event_id: string;
  pool_id: string;
  organisation_id: string;
  /** Tickets the waiting entries ask for. */
  waiting_demand: number;
  /** Tickets offered and not yet taken out of the reserve. */
  untaken: number;
  /** Some offer's hold has ended (sold or released) and the entry is still `offered`. */
  offers_ended: boolean;
}

/** Offers one pass makes or takes at most, so one script's keys stay within what a cluster client defines (shared/redis.ts). */
export const MAX_OFFERS_PER_PASS = 50;

const ENTRY_COLUMNS = `w.id, w.organisation_id, w.event_id, w.pool_id, w.ticket_type_id, w.email, w.quantity, w.state, w.hold_id, w.offered_quantity,
  (SELECT h.expires_at FROM holds h WHERE h.id = w.hold_id) AS offer_expires_at, w.created_at`;

export class WaitlistEntries {
  constructor(private readonly db: Queryable) {}

  /** A published event of the organisation, by numeric id. */
  async publishedEvent(organisationId: number, eventId: string): Promise<EventRow | undefined> {
    const { rows } = await this.db.query<EventRow>("SELECT * FROM events WHERE id = $1 AND organisation_id = $2 AND status = 'published'", [eventId, organisationId]);
    return rows[0];
  }

  /** Serialises work on one pool's list until the transaction ends. */
  static async lockPool(client: PoolClient, poolId: string): Promise<void> {
    await client.query("SELECT pg_advisory_xact_lock(hashtextextended('waitlist:' || $1::text, 0))", [poolId]);
  }

  /** Adds an entry unless the email has a live one for the event; returns the live entry either way. */
  static async join(client: PoolClient, entry: { organisationId: string; eventId: string; poolId: string; ticketTypeId: string; email: string; quantity: number }): Promise<EntryRow> {
    await client.query(
      `INSERT INTO waitlist_entries (organisation_id, event_id, pool_id, ticket_type_id, email, quantity) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`,
      [entry.organisationId, entry.eventId, entry.poolId, entry.ticketTypeId, entry.email, entry.quantity],
    );
    const { rows } = await client.query<EntryRow>(
      `SELECT ${ENTRY_COLUMNS} FROM waitlist_entries w WHERE w.event_id = $1 AND lower(w.email) = lower($2) AND w.state IN ('waiting', 'offered')`,
      [entry.eventId, entry.email],
    );
    return rows[0]!;
  }

  /** Tickets the pool's waiting entries ask for. */
  static async waitingDemand(client: PoolClient, poolId: string): Promise<number> {
    const { rows } = await client.query<{ demand: number }>(
      "SELECT COALESCE(sum(quantity), 0)::integer AS demand FROM waitlist_entries WHERE pool_id = $1 AND state = 'waiting'",
      [poolId],
    );
    return rows[0]!.demand;
  }

  /** Offers whose hold has ended become `purchased` (sold) or `lapsed` (released). */
  static async settleOffers(client: PoolClient, poolId: string): Promise<void> {
    await client.query(
      `UPDATE waitlist_entries w SET state = CASE h.state WHEN 'committed' THEN 'purchased' ELSE 'lapsed' END, updated_at = now()
         FROM holds h WHERE w.pool_id = $1 AND w.state = 'offered' AND h.id = w.hold_id AND h.state <> 'held'`,
      [poolId],
    );
  }

  /** Tickets offered but not yet taken out of the reserve: the reserve still counts them. */
  static async untakenQuantity(client: PoolClient, poolId: string): Promise<number> {
    const { rows } = await client.query<{ quantity: number }>(
      "SELECT COALESCE(sum(offered_quantity), 0)::integer AS quantity FROM waitlist_entries WHERE pool_id = $1 AND state = 'offered' AND taken_at IS NULL",
      [poolId],
    );
    return rows[0]!.quantity;
  }

  static async waiting(client: PoolClient, poolId: string): Promise<Array<{ id: string; quantity: number }>> {
    const { rows } = await client.query<{ id: string; quantity: number }>(
      "SELECT id, quantity FROM waitlist_entries WHERE pool_id = $1 AND state = 'waiting' ORDER BY id LIMIT $2",
      [poolId, MAX_OFFERS_PER_PASS],
    );
    return rows;
  }

  /**
   * Records the offers as live holds and marks their entries offered, in the
   * caller's transaction. Each hold id is a new uuid: it is also the id of the
   * offer's checkout session, the customer's unguessable link.
   */
  static async offer(client: PoolClient, organisationId: string, eventId: string, poolId: string, offers: Array<{ entryId: string; quantity: number }>, expiresAt: Date): Promise<void> {
    const holdIds = offers.map(() => randomUUID());
    await client.query(
      `INSERT INTO holds (id, organisation_id, event_id, pools, state, expires_at)
       SELECT hold_id, $1, $2, jsonb_build_array(jsonb_build_object('pool_id', $3::text, 'quantity', quantity)), 'held', $4
         FROM unnest($5::text[], $6::integer[]) AS offer (hold_id, quantity)`,
      [organisationId, eventId, poolId, expiresAt, holdIds, offers.map((offer) => offer.quantity)],
    );
    await client.query(
      `UPDATE waitlist_entries w SET state = 'offered', hold_id = offer.hold_id, offered_quantity = offer.quantity, offered_at = now(), updated_at = now()
         FROM unnest($1::bigint[], $2::text[], $3::integer[]) AS offer (entry_id, hold_id, quantity) WHERE w.id = offer.entry_id`,
      [offers.map((offer) => offer.entryId), holdIds, offers.map((offer) => offer.quantity)],
    );
  }

  /** Live offers Redis has not taken, their holds locked so no release runs while they are taken. */
  static async lockUntaken(client: PoolClient, poolId: string): Promise<UntakenOffer[]> {
    const { rows } = await client.query<{ hold_id: string; offered_quantity: number; expires_at: Date }>(
      `SELECT w.hold_id, w.offered_quantity, h.expires_at FROM waitlist_entries w JOIN holds h ON h.id = w.hold_id
        WHERE w.pool_id = $1 AND w.state = 'offered' AND w.taken_at IS NULL AND h.state = 'held' ORDER BY w.id LIMIT $2 FOR UPDATE OF h`,
      [poolId, MAX_OFFERS_PER_PASS],
    );
    return rows.map((row) => ({ holdId: row.hold_id, quantity: row.offered_quantity, expiresAt: row.expires_at }));
  }

  /** The offers' tickets are held: their emails are due. */
  static async markTaken(client: PoolClient, holdIds: string[]): Promise<void> {
    if (holdIds.length > 0) {
      await client.query('UPDATE waitlist_entries SET taken_at = now(), email_due_at = now(), updated_at = now() WHERE hold_id = ANY($1::text[]) AND taken_at IS NULL', [holdIds]);
    }
  }

  /**
   * Offers whose email is due, each claimed for `leaseMs` (pushed ahead, so
   * a concurrent sender skips it and a dead one's claim runs out).
   */
  async claimDueEmails(limit: number, leaseMs: number): Promise<DueOfferEmail[]> {
    const { rows } = await this.db.query<DueOfferEmail>(
      `WITH due AS (
         SELECT id FROM waitlist_entries WHERE state = 'offered' AND emailed_at IS NULL AND email_due_at <= now()
          ORDER BY email_due_at, id LIMIT $1 FOR UPDATE SKIP LOCKED)
       UPDATE waitlist_entries w SET email_due_at = now() + make_interval(secs => $2::double precision / 1000), email_attempts = w.email_attempts + 1
         FROM due, holds h, events e, ticket_types t
        WHERE w.id = due.id AND h.id = w.hold_id AND e.id = w.event_id AND t.id = w.ticket_type_id
       RETURNING w.id, w.organisation_id, w.hold_id, w.email, w.offered_quantity, w.email_attempts, h.expires_at, e.title AS event_title, e.starts_at AS event_starts_at, t.name AS ticket_type_name`,
      [limit, leaseMs],
    );
    return rows;
  }

  async emailSent(entryId: string): Promise<void> {
    await this.db.query('UPDATE waitlist_entries SET emailed_at = now(), email_last_error = NULL WHERE id = $1', [entryId]);
  }

  async emailFailed(entryId: string, error: string, retryInMs: number): Promise<void> {
    await this.db.query('UPDATE waitlist_entries SET email_last_error = $2, email_due_at = now() + make_interval(secs => $3::double precision / 1000) WHERE id = $1', [entryId, error.slice(0, 500), retryInMs]);
  }

  /**
   * Pools with a live list (someone waiting or offered): the allocator's
   * round, each with what decides whether a pass there has work (see
   * `passHasWork`), read in one statement without the pools' locks.
   */
  async livePools(): Promise<LiveList[]> {
    const { rows } = await this.db.query<LiveList>(
      `SELECT w.event_id, w.pool_id, w.organisation_id,
              COALESCE(sum(w.quantity) FILTER (WHERE w.state = 'waiting'), 0)::integer AS waiting_demand,
              COALESCE(sum(w.offered_quantity) FILTER (WHERE w.state = 'offered' AND w.taken_at IS NULL), 0)::integer AS untaken,
              COALESCE(bool_or(w.state = 'offered' AND h.state <> 'held'), false) AS offers_ended
         FROM waitlist_entries w LEFT JOIN holds h ON h.id = w.hold_id
        WHERE w.state IN ('waiting', 'offered')
        GROUP BY w.event_id, w.pool_id, w.organisation_id`,
    );
    return rows;
  }

  async offerByHold(organisationId: number, holdId: string): Promise<OfferRow | undefined> {
    const { rows } = await this.db.query<OfferRow>(
      `SELECT w.organisation_id, w.event_id, w.pool_id, w.ticket_type_id, w.email, w.state, w.offered_quantity, h.expires_at
         FROM waitlist_entries w JOIN holds h ON h.id = w.hold_id WHERE w.hold_id = $1 AND w.organisation_id = $2`,
      [holdId, organisationId],
    );
    return rows[0];
  }

  async forEvent(eventId: string): Promise<EntryRow[]> {
    const { rows } = await this.db.query<EntryRow>(`SELECT ${ENTRY_COLUMNS} FROM waitlist_entries w WHERE w.event_id = $1 ORDER BY w.id`, [eventId]);
    return rows;
  }
}
