/** Reads of the catalog tables. Every event query is scoped to the organisation. */
import type { Pool } from '@partner-api/shared';

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
const isNumericId = (idOrSlug: string) => /^[0-9]{1,18}$/.test(idOrSlug);

export class CatalogRepository {
  constructor(private readonly pool: Pool) {}

  async findEvent(organisationId: number, idOrSlug: string): Promise<EventRow | undefined> {
    const byId = isNumericId(idOrSlug);
    const { rows } = await this.pool.query<EventRow>(
      `SELECT * FROM events WHERE organisation_id = $1 AND ${byId ? 'id = $2::bigint' : 'slug = $2'}`,
      [organisationId, idOrSlug],
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
      'SELECT id, event_id, name, capacity, sold FROM pools WHERE event_id = ANY($1::bigint[]) ORDER BY id',
      [eventIds],
    );
    return rows;
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
