/**
 * The organisation's stored events as a feed: in the order their storing
 * transactions began (`stored_xid`, then the order one transaction stored them in), and only rows whose
 * transaction is older than every transaction still running, so a later
 * page never gains a row before a position already handed out (D281).
 */
import type { Pool } from '@partner-api/shared';

/** Where a feed page starts: after this row. */
export interface FeedPosition {
  xid: string;
  seq: string;
}

export interface FeedQuery {
  organisationId: number;
  livemode: boolean;
  /** Events created at or after this (the 30-day floor already applied). */
  since: Date;
  type: string | undefined;
  after: FeedPosition | undefined;
  limit: number;
}

export interface FeedRow extends FeedPosition {
  id: string;
  payload: string;
}

export class EventFeedRepository {
  constructor(private readonly pool: Pool) {}

  /** Up to `limit` rows after the position (the caller asks one more to learn whether a page follows). */
  async page(query: FeedQuery): Promise<FeedRow[]> {
    const { rows } = await this.pool.query<FeedRow>(
      `SELECT id, payload, stored_xid::text AS xid, stored_seq::text AS seq FROM events
        WHERE organisation_id = $1 AND livemode = $2 AND created_at >= $3
          AND ($4::text IS NULL OR type = $4)
          AND (stored_xid, stored_seq) > ($5::xid8, $6::bigint)
          AND stored_xid < pg_snapshot_xmin(pg_current_snapshot())
        ORDER BY stored_xid, stored_seq
        LIMIT $7`,
      [query.organisationId, query.livemode, query.since, query.type ?? null, query.after?.xid ?? '0', query.after?.seq ?? '0', query.limit],
    );
    return rows;
  }

  /** The feed position of one of the organisation's events, when it is stored. */
  async positionOf(organisationId: number, livemode: boolean, eventId: string): Promise<FeedPosition | undefined> {
    const { rows } = await this.pool.query<FeedPosition>(
      'SELECT stored_xid::text AS xid, stored_seq::text AS seq FROM events WHERE id = $1 AND organisation_id = $2 AND livemode = $3',
      [eventId, organisationId, livemode],
    );
    return rows[0];
  }

  /**
   * Retention: deletes up to `batch` events received before `before` whose
   * deliveries are all finished, then finished deliveries and replays as
   * old, and disable notices sent as long ago. Returns how many events went.
   */
  async prune(before: Date, batch: number): Promise<number> {
    const { rowCount } = await this.pool.query(
      `DELETE FROM events WHERE id IN (
         SELECT ev.id FROM events ev
          WHERE ev.received_at < $1
            AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = ev.id AND d.status IN ('scheduled', 'sending'))
          ORDER BY ev.received_at
          LIMIT $2)`,
      [before, batch],
    );
    await this.pool.query(
      `DELETE FROM deliveries WHERE id IN (
         SELECT id FROM deliveries WHERE created_at < $1 AND status NOT IN ('scheduled', 'sending') LIMIT $2)`,
      [before, batch],
    );
    await this.pool.query('DELETE FROM replays WHERE id IN (SELECT id FROM replays WHERE created_at < $1 LIMIT $2)', [before, batch]);
    // Disable notices once emailed; one never sent stays until it is.
    await this.pool.query('DELETE FROM disable_notices WHERE id IN (SELECT id FROM disable_notices WHERE sent_at < $1 LIMIT $2)', [before, batch]);
    return rowCount ?? 0;
  }
}
