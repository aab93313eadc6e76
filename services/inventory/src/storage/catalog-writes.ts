/**
 * The statements behind the platform's catalog edits (CatalogAdmin): venues,
 * events and their status, pools and ticket types. Every method runs on the
 * connection it is given, so the caller's transaction and its row locks
 * hold across them. Column lists come from the domain's checked field maps,
 * never from a caller's input; values always travel as parameters.
 */
import { soldTickets, type PoolRow, type Queryable, type VenueRow } from './catalog-repository';

/** Column and value pairs to write, in order. */
export type ColumnValues = ReadonlyArray<readonly [column: string, value: unknown]>;

const columns = (set: ColumnValues): string => set.map(([column]) => column).join(', ');
const values = (set: ColumnValues): unknown[] => set.map(([, value]) => value);
const placeholders = (set: ColumnValues, first: number): string => set.map((_, i) => `$${i + first}`).join(', ');
const assignments = (set: ColumnValues, first: number): string => set.map(([column], i) => `${column} = $${i + first}`).join(', ');

/** A pool row as written (what has been sold is not a column). */
export type WrittenPool = Omit<PoolRow, 'sold'>;

export class CatalogWrites {
  constructor(private readonly db: Queryable) {}

  async insertVenue(set: ColumnValues): Promise<VenueRow> {
    const { rows } = await this.db.query<VenueRow>(`INSERT INTO venues (${columns(set)}) VALUES (${placeholders(set, 1)}) RETURNING *`, values(set));
    return rows[0]!;
  }

  /** Undefined when there is no such venue. */
  async updateVenue(id: bigint, set: ColumnValues): Promise<VenueRow | undefined> {
    const { rows } = await this.db.query<VenueRow>(
      `UPDATE venues SET ${[assignments(set, 2), 'updated_at = now()'].filter(Boolean).join(', ')} WHERE id = $1 RETURNING *`,
      [id, ...values(set)],
    );
    return rows[0];
  }

  /** A new draft event of the organisation; its id. */
  async insertEvent(organisationId: number, set: ColumnValues): Promise<string> {
    const { rows } = await this.db.query<{ id: string }>(
      `INSERT INTO events (organisation_id, status, ${columns(set)}) VALUES ($1, 'draft', ${placeholders(set, 2)}) RETURNING id`,
      [organisationId, ...values(set)],
    );
    return rows[0]!.id;
  }

  async updateEvent(eventId: string, set: ColumnValues): Promise<void> {
    await this.db.query(`UPDATE events SET ${assignments(set, 2)}, updated_at = now() WHERE id = $1`, [eventId, ...values(set)]);
  }

  async setEventStatus(eventId: string, status: string): Promise<void> {
    await this.db.query('UPDATE events SET status = $2, updated_at = now() WHERE id = $1', [eventId, status]);
  }

  async markEventSoldOut(eventId: string): Promise<void> {
    await this.db.query('UPDATE events SET marked_sold_out = true, updated_at = now() WHERE id = $1', [eventId]);
  }

  async insertPool(eventId: string, name: string, capacity: number | null): Promise<WrittenPool> {
    const { rows } = await this.db.query<WrittenPool>('INSERT INTO pools (event_id, name, capacity) VALUES ($1, $2, $3) RETURNING *', [eventId, name, capacity]);
    return rows[0]!;
  }

  /**
   * The organisation's pool, locked, with its tickets sold; undefined when
   * there is none. A sale appends to pool_sales without touching the pool
   * row (D175), so when the capacity is to change the pool's lock alone
   * does not stop one committing between this count and the cut: new sales
   * are held back until the transaction ends (a rare write).
   */
  async lockPoolForChange(poolId: bigint, organisationId: number, capacityChanges: boolean): Promise<PoolRow | undefined> {
    if (capacityChanges) await this.db.query('LOCK TABLE pool_sales IN SHARE MODE');
    const { rows } = await this.db.query<PoolRow>(
      `SELECT p.id, p.event_id, p.name, p.capacity, ${soldTickets('p')} AS sold
         FROM pools p JOIN events e ON e.id = p.event_id WHERE p.id = $1 AND e.organisation_id = $2 FOR UPDATE OF p`,
      [poolId, organisationId],
    );
    return rows[0];
  }

  /** Renames when `name` is given; sets the capacity (null: uncapped) when `capacity` is not undefined. */
  async updatePool(poolId: string, name: string | null, capacity: number | null | undefined): Promise<WrittenPool> {
    const { rows } = await this.db.query<WrittenPool>(
      'UPDATE pools SET name = coalesce($2, name), capacity = CASE WHEN $4 THEN $3::integer ELSE capacity END WHERE id = $1 RETURNING *',
      [poolId, name, capacity ?? null, capacity !== undefined],
    );
    return rows[0]!;
  }

  /** A new ticket type of the event; its id. */
  async insertTicketType(eventId: string, set: ColumnValues): Promise<string> {
    const { rows } = await this.db.query<{ id: string }>(
      `INSERT INTO ticket_types (event_id, ${columns(set)}) VALUES ($1, ${placeholders(set, 2)}) RETURNING id`,
      [eventId, ...values(set)],
    );
    return rows[0]!.id;
  }

  /** The organisation's ticket type, locked; undefined when there is none. */
  async lockTicketType(typeId: bigint, organisationId: number): Promise<{ id: string; event_id: string } | undefined> {
    const { rows } = await this.db.query<{ id: string; event_id: string }>(
      `SELECT tt.id, tt.event_id FROM ticket_types tt JOIN events e ON e.id = tt.event_id
        WHERE tt.id = $1 AND e.organisation_id = $2 FOR UPDATE OF tt`,
      [typeId, organisationId],
    );
    return rows[0];
  }

  async updateTicketType(typeId: string, set: ColumnValues): Promise<void> {
    if (set.length === 0) return;
    await this.db.query(`UPDATE ticket_types SET ${assignments(set, 2)}, updated_at = now() WHERE id = $1`, [typeId, ...values(set)]);
  }

  /** How many of `poolIds` are pools of the event. */
  async countEventPools(eventId: string, poolIds: string[]): Promise<number> {
    const { rows } = await this.db.query('SELECT id FROM pools WHERE event_id = $1 AND id = ANY($2::bigint[])', [eventId, poolIds]);
    return rows.length;
  }

  /** The ticket type draws on these pools, in this order (replacing the ones before). */
  async setTicketTypePools(typeId: string, poolIds: string[]): Promise<void> {
    await this.db.query('DELETE FROM ticket_type_pools WHERE ticket_type_id = $1', [typeId]);
    await this.db.query(
      'INSERT INTO ticket_type_pools (ticket_type_id, pool_id, position) SELECT $1, pool_id, position - 1 FROM unnest($2::bigint[]) WITH ORDINALITY AS given(pool_id, position)',
      [typeId, poolIds],
    );
  }
}
