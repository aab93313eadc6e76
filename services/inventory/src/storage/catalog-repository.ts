/** Reads of the catalog tables. Every event query is scoped to the organisation. */
import type { Pool, PoolClient } from '@partner-api/shared';
import type { LiveHold, PoolSnapshot, SettledHold } from './stock-store';

/** A pool or a transaction's client: reads work the same on either. */
export type Queryable = Pick<Pool | PoolClient, 'query'>;

/**
 * Tickets sold from a pool, as SQL over the pool alias: `pools.sold` (sales
 * before pool_sales, and seeds) plus the sales appended since. Sales never
 * update the pool row, so a hot pool's sales do not queue on it.
 */
export const soldTickets = (pool: string) =>
  `(${pool}.sold + coalesce((SELECT sum(s.quantity) FROM pool_sales s WHERE s.pool_id = ${pool}.id), 0))::integer`;

export interface VenueRow {
  id: string;
  name: string;
  slug: string;
  line1: string;
  line2: string | null;
  locality: string;
  state: string;
  postal_code: string;
  country: string;
  lat: number | null;
  lng: number | null;
  url: string | null;
  phone: string | null;
}

export interface EventRow {
  id: string;
  organisation_id: string;
  slug: string;
  title: string;
  summary: string | null;
  description: string | null;
  status: 'draft' | 'pending_review' | 'published' | 'cancelled';
  starts_at: Date;
  ends_at: Date | null;
  timezone: string;
  doors: string | null;
  image_url: string | null;
  on_sale_at: Date | null;
  venue_id: string | null;
  categories: string[];
  marked_sold_out: boolean;
  created_at: Date;
  updated_at: Date;
}

export interface PoolRow {
  id: string;
  event_id: string;
  name: string;
  capacity: number | null;
  sold: number;
}

export interface TicketTypeRow {
  id: string;
  event_id: string;
  name: string;
  description: string | null;
  price_cents: string;
  booking_fee_cents: string;
  gst_applies: boolean;
  min_per_order: number;
  max_per_order: number;
  sale_starts_at: Date | null;
  sale_ends_at: Date | null;
  hidden: boolean;
  seated: boolean;
  /** Pools in position order; the first is the default. */
  pool_ids: string[];
}

/** Ids are digits; anything else is looked up as a slug. */
export const isNumericId = (idOrSlug: string) => /^[0-9]{1,18}$/.test(idOrSlug);

export type StatusFilter = 'published' | 'draft' | 'pending_review' | 'cancelled' | 'ended' | 'all';
export type TimeFilter = 'upcoming' | 'past' | 'all';

export interface EventListQuery {
  organisationId: number;
  status: StatusFilter;
  time: TimeFilter;
  /** Search terms, already reduced to words. */
  terms: string[] | undefined;
  updatedSince: Date | undefined;
  limit: number;
  /** Keyset position: [starts_at as text, id] of the last row seen. */
  after: [string, string] | undefined;
  now: Date;
}

export interface Page<T> {
  rows: T[];
  hasMore: boolean;
  /** Keyset position of the last row returned. */
  last: string[] | undefined;
}

/** Builds a WHERE clause with numbered parameters. */
class Where {
  readonly params: unknown[] = [];
  private readonly clauses: string[] = [];

  param(value: unknown): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }

  add(clause: string): void {
    this.clauses.push(clause);
  }

  toString(): string {
    return this.clauses.length ? `WHERE ${this.clauses.join(' AND ')}` : '';
  }
}

// When an event is over: its end, or its start when it has no end.
const ENDED_AT = 'coalesce(e.ends_at, e.starts_at)';

/** An event of a page with what its view needs, read together. */
export interface HydratedEvent {
  event: EventRow;
  venue: VenueRow | undefined;
  pools: PoolRow[];
  ticketTypes: TicketTypeRow[];
}

/** A row as json_build_object gives it: timestamps arrive as ISO text. */
type JsonRow<T> = { [K in keyof T]: T[K] extends Date | null ? string | null : T[K] };

const toDate = (value: string | null): Date | null => (value === null ? null : new Date(value));

// Nested rows in the shapes the separate queries return: bigints as text
// (as pg reads them), the rest as JSON gives them.
const VENUE_JSON = `json_build_object('id', v.id::text, 'name', v.name, 'slug', v.slug, 'line1', v.line1, 'line2', v.line2,
  'locality', v.locality, 'state', v.state, 'postal_code', v.postal_code, 'country', v.country, 'lat', v.lat, 'lng', v.lng,
  'url', v.url, 'phone', v.phone)`;
const POOL_JSON = `json_build_object('id', p.id::text, 'event_id', p.event_id::text, 'name', p.name, 'capacity', p.capacity, 'sold', p.sold)`;
const TICKET_TYPE_JSON = `json_build_object('id', tt.id::text, 'event_id', tt.event_id::text, 'name', tt.name, 'description', tt.description,
  'price_cents', tt.price_cents::text, 'booking_fee_cents', tt.booking_fee_cents::text, 'gst_applies', tt.gst_applies,
  'min_per_order', tt.min_per_order, 'max_per_order', tt.max_per_order, 'sale_starts_at', tt.sale_starts_at, 'sale_ends_at', tt.sale_ends_at,
  'hidden', tt.hidden, 'seated', tt.seated,
  'pool_ids', ARRAY(SELECT ttp.pool_id::text FROM ticket_type_pools ttp WHERE ttp.ticket_type_id = tt.id ORDER BY ttp.position, ttp.pool_id))`;

/** The filter, order and limit of an event page (one row more than asked, to know if there are more). */
function pageQuery(query: EventListQuery): { where: Where; order: string; limit: string } {
  const where = new Where();
  where.add(`e.organisation_id = ${where.param(query.organisationId)}`);
  // Bound only when a clause uses it: PostgreSQL cannot type an unused parameter.
  let nowParam: string | undefined;
  const now = () => (nowParam ??= `${where.param(query.now)}::timestamptz`);
  if (query.status === 'ended') where.add(`e.status <> 'cancelled' AND ${ENDED_AT} <= ${now()}`);
  else if (query.status === 'cancelled') where.add(`e.status = 'cancelled'`);
  else if (query.status !== 'all') where.add(`e.status = ${where.param(query.status)} AND ${ENDED_AT} > ${now()}`);
  if (query.time === 'upcoming') where.add(`${ENDED_AT} > ${now()}`);
  if (query.time === 'past') where.add(`${ENDED_AT} <= ${now()}`);
  if (query.terms) {
    // Every term must match a word of the title or summary as a prefix.
    const tsquery = query.terms.map((term) => `${term}:*`).join(' & ');
    where.add(query.terms.length ? `e.search @@ to_tsquery('simple', ${where.param(tsquery)})` : 'false');
  }
  if (query.updatedSince) where.add(`e.updated_at >= ${where.param(query.updatedSince)}`);
  const descending = query.time === 'past';
  if (query.after) {
    const [startsAt, id] = query.after;
    where.add(`(e.starts_at, e.id) ${descending ? '<' : '>'} (${where.param(startsAt)}::timestamptz, ${where.param(id)}::bigint)`);
  }
  const direction = descending ? 'DESC' : 'ASC';
  return { where, order: `e.starts_at ${direction}, e.id ${direction}`, limit: where.param(query.limit + 1) };
}

function toPage<T extends { sort_key: string; id: string }>(rows: T[], limit: number): Page<T> {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { rows: page, hasMore: rows.length > limit, last: last && [last.sort_key, last.id] };
}

export class CatalogRepository {
  constructor(private readonly pool: Queryable) {}

  /**
   * A write to an event's pools or ticket types changes what the event
   * object shows (`ticketing`, `sold_out`), so it moves the event's
   * `updated_at` for partners polling with `updated_since`.
   */
  async touchEvent(eventId: string): Promise<Date> {
    const { rows } = await this.pool.query<{ updated_at: Date }>('UPDATE events SET updated_at = now() WHERE id = $1 RETURNING updated_at', [eventId]);
    return rows[0]!.updated_at;
  }

  /** How far the catalog clock has got, locked for the caller's transaction; the first call starts it now. */
  async lockClock(): Promise<Date> {
    await this.pool.query('INSERT INTO catalog_clock (ticked_at) VALUES (now()) ON CONFLICT (id) DO NOTHING');
    const { rows } = await this.pool.query<{ ticked_at: Date }>('SELECT ticked_at FROM catalog_clock FOR UPDATE');
    return rows[0]!.ticked_at;
  }

  /**
   * Moves `updated_at` of the events whose status or ticket types' status
   * time alone changed after `since` (an end, an on-sale time, a sales
   * window opening or closing), and the clock with them; returns them.
   */
  async touchEventsTimeChanged(since: Date): Promise<Array<{ id: string; organisation_id: string }>> {
    const { rows } = await this.pool.query<{ id: string; organisation_id: string }>(
      `UPDATE events SET updated_at = now()
        WHERE status <> 'cancelled' AND id IN (
          SELECT id FROM events WHERE coalesce(ends_at, starts_at) > $1 AND coalesce(ends_at, starts_at) <= now()
          UNION SELECT id FROM events WHERE on_sale_at > $1 AND on_sale_at <= now()
          UNION SELECT event_id FROM ticket_types WHERE sale_starts_at > $1 AND sale_starts_at <= now()
          UNION SELECT event_id FROM ticket_types WHERE sale_ends_at > $1 AND sale_ends_at <= now())
        RETURNING id, organisation_id`,
      [since],
    );
    await this.pool.query('UPDATE catalog_clock SET ticked_at = now()');
    return rows;
  }

  /** `forUpdate` locks the row for the rest of the caller's transaction. */
  async findEvent(organisationId: number, idOrSlug: string, forUpdate = false): Promise<EventRow | undefined> {
    const byId = isNumericId(idOrSlug);
    const { rows } = await this.pool.query<EventRow>(
      `SELECT * FROM events WHERE organisation_id = $1 AND ${byId ? 'id = $2::bigint' : 'slug = $2'}${forUpdate ? ' FOR UPDATE' : ''}`,
      [organisationId, idOrSlug],
    );
    return rows[0];
  }

  /**
   * One page of the organisation's events. Status `ended` and the time
   * filters are computed from `now`, matching how a single event is shown.
   */
  async listEvents(query: EventListQuery): Promise<Page<EventRow>> {
    const { where, order, limit } = pageQuery(query);
    const { rows } = await this.pool.query<EventRow & { sort_key: string }>(
      `SELECT e.*, e.starts_at::text AS sort_key FROM events e ${where} ORDER BY ${order} LIMIT ${limit}`,
      where.params,
    );
    return toPage(rows, query.limit);
  }

  /**
   * The same page with each event's venue, pools and ticket types, in one
   * statement (one round trip, one snapshot): what GET /events renders.
   */
  async listHydratedEvents(query: EventListQuery): Promise<Page<HydratedEvent>> {
    const { where, order, limit } = pageQuery(query);
    const { rows } = await this.pool.query<EventRow & { sort_key: string; venue: JsonRow<VenueRow> | null; pools: JsonRow<PoolRow>[]; ticket_types: JsonRow<TicketTypeRow>[] }>(
      `WITH page AS (SELECT e.*, e.starts_at::text AS sort_key FROM events e ${where} ORDER BY ${order} LIMIT ${limit})
       SELECT e.*,
              (SELECT ${VENUE_JSON} FROM venues v WHERE v.id = e.venue_id) AS venue,
              (SELECT coalesce(json_agg(${POOL_JSON} ORDER BY p.id), '[]') FROM pools p WHERE p.event_id = e.id) AS pools,
              (SELECT coalesce(json_agg(${TICKET_TYPE_JSON} ORDER BY tt.sort_order, tt.id), '[]') FROM ticket_types tt WHERE tt.event_id = e.id) AS ticket_types
         FROM page e
        ORDER BY ${order}`,
      where.params,
    );
    const page = toPage(rows, query.limit);
    return {
      ...page,
      rows: page.rows.map(({ venue, pools, ticket_types: types, sort_key: _sortKey, ...event }) => ({
        event,
        venue: venue ?? undefined,
        pools,
        ticketTypes: types.map((type) => ({ ...type, sale_starts_at: toDate(type.sale_starts_at), sale_ends_at: toDate(type.sale_ends_at) })),
      })),
    };
  }

  /** Venues the organisation's events use, live ones only, by id. */
  async listVenues(organisationId: number, limit: number, afterId: string | undefined): Promise<Page<VenueRow>> {
    const { rows } = await this.pool.query<VenueRow>(
      `SELECT v.* FROM venues v
        WHERE v.removed_at IS NULL
          AND EXISTS (SELECT 1 FROM events e WHERE e.venue_id = v.id AND e.organisation_id = $1)
          AND v.id > $2::bigint
        ORDER BY v.id
        LIMIT $3`,
      [organisationId, afterId ?? '0', limit + 1],
    );
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return { rows: page, hasMore: rows.length > limit, last: last && [last.id] };
  }

  /** A venue one of the organisation's events points at, removed or not. */
  async findVenue(organisationId: number, id: string): Promise<VenueRow | undefined> {
    const { rows } = await this.pool.query<VenueRow>(
      `SELECT v.* FROM venues v
        WHERE v.id = $2::bigint
          AND EXISTS (SELECT 1 FROM events e WHERE e.venue_id = v.id AND e.organisation_id = $1)`,
      [organisationId, id],
    );
    return rows[0];
  }

  async venuesByIds(ids: string[]): Promise<Map<string, VenueRow>> {
    if (ids.length === 0) return new Map();
    const { rows } = await this.pool.query<VenueRow>('SELECT * FROM venues WHERE id = ANY($1::bigint[])', [ids]);
    return new Map(rows.map((row) => [row.id, row]));
  }

  async poolsForEvents(eventIds: string[]): Promise<PoolRow[]> {
    if (eventIds.length === 0) return [];
    const { rows } = await this.pool.query<PoolRow>(
      `SELECT p.id, p.event_id, p.name, p.capacity, ${soldTickets('p')} AS sold FROM pools p WHERE p.event_id = ANY($1::bigint[]) ORDER BY p.id`,
      [eventIds],
    );
    return rows;
  }

  /**
   * What is left per capped pool by the durable record (capacity less sold
   * less live holds), with the live holds on it: one statement, so one
   * snapshot, and the counter and hold records rebuilt from it agree.
   * "Left" may be below zero: a hold is recorded before Redis takes it, so
   * rows whose take is still in flight (and will be refused or fail) can
   * outnumber the tickets. Their records are written back with the counter,
   * and releasing them pays the deficit back before anything is sold.
   */
  async stockSnapshot(poolIds: string[]): Promise<Map<string, PoolSnapshot>> {
    if (poolIds.length === 0) return new Map();
    const { rows } = await this.pool.query<{ id: string; unsold: number; holds: Array<{ id: string; pools: Array<{ pool_id: string | number; quantity: number }>; expires_ms: number }> }>(
      `SELECT p.id, p.capacity - ${soldTickets('p')} AS unsold,
              coalesce(json_agg(json_build_object('id', h.id, 'pools', h.pools, 'expires_ms', (extract(epoch FROM h.expires_at) * 1000)::bigint) ORDER BY h.id)
                         FILTER (WHERE h.id IS NOT NULL), '[]') AS holds
         FROM pools p
         LEFT JOIN holds h ON h.state = 'held' AND h.event_id = p.event_id
              AND EXISTS (SELECT 1 FROM jsonb_array_elements(h.pools) line WHERE line->>'pool_id' = p.id::text)
        WHERE p.id = ANY($1::bigint[]) AND p.capacity IS NOT NULL
        GROUP BY p.id`,
      [poolIds],
    );
    return new Map(
      rows.map((row) => {
        const holds: LiveHold[] = row.holds.map((hold) => ({
          id: hold.id,
          pools: hold.pools.map((line) => ({ poolId: String(line.pool_id), quantity: Number(line.quantity) })),
          expiresAt: Number(hold.expires_ms),
        }));
        const held = holds.reduce((sum, hold) => sum + hold.pools.filter((line) => line.poolId === row.id).reduce((n, line) => n + line.quantity, 0), 0);
        return [row.id, { available: Number(row.unsold) - held, holds }];
      }),
    );
  }

  /** The holds among `ids` that are no longer live, and how they ended. */
  /** Of `poolIds`, those of the organisation's event that have a capacity. */
  async cappedPoolIds(organisationId: number, eventId: string, poolIds: string[]): Promise<string[]> {
    const { rows } = await this.pool.query<{ id: string }>(
      `SELECT p.id FROM pools p JOIN events e ON e.id = p.event_id
       WHERE e.id = $1 AND e.organisation_id = $2 AND p.capacity IS NOT NULL AND p.id = ANY($3::bigint[])`,
      [eventId, organisationId, poolIds],
    );
    return rows.map((row) => row.id);
  }

  async settledHolds(ids: string[]): Promise<SettledHold[]> {
    if (ids.length === 0) return [];
    const { rows } = await this.pool.query<{ id: string; event_id: string; state: 'released' | 'committed' }>(
      "SELECT id, event_id, state FROM holds WHERE id = ANY($1::text[]) AND state <> 'held'",
      [ids],
    );
    return rows.map((row) => ({ id: row.id, eventId: row.event_id, state: row.state }));
  }

  async ticketTypesForEvents(eventIds: string[]): Promise<TicketTypeRow[]> {
    if (eventIds.length === 0) return [];
    const { rows } = await this.pool.query<TicketTypeRow>(
      `SELECT tt.*,
              ARRAY(SELECT ttp.pool_id::text FROM ticket_type_pools ttp
                     WHERE ttp.ticket_type_id = tt.id ORDER BY ttp.position, ttp.pool_id) AS pool_ids
         FROM ticket_types tt
        WHERE tt.event_id = ANY($1::bigint[])
        ORDER BY tt.event_id, tt.sort_order, tt.id`,
      [eventIds],
    );
    return rows;
  }
}
