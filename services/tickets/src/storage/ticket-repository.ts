/** Tickets in the tickets schema. */
import type { PoolClient, Pool } from '@partner-api/shared';

export interface TicketRow {
  id: string;
  organisation_id: string;
  barcode: string;
  order_id: string | null;
  position: number | null;
  event_id: string;
  ticket_type_id: string;
  pool_id: string;
  ticket_type_name: string;
  attendee_first_name: string | null;
  attendee_last_name: string | null;
  attendee_email: string | null;
  price_cents: string;
  status: 'valid' | 'checked_in' | 'refunded' | 'void';
  comp: boolean;
  /** The comp batch that issued it (null for tickets of an order). */
  comp_batch_id: string | null;
  seat_label: string | null;
  checked_in_at: Date | null;
  void_reason: string | null;
  voided_at: Date | null;
  /** Voided, and its stock not yet back in the pool. */
  restock_pending: boolean;
  created_at: Date;
  updated_at: Date;
}

/** One page of an event's attendee list: every ticket but the void ones, by id. */
export interface AttendeeFilter {
  organisationId: number;
  eventId: string;
  /** true: status checked_in; false: valid or refunded; undefined: both. */
  checkedIn?: boolean | undefined;
  /** Inclusive. */
  updatedSince?: Date | undefined;
  /** Keyset: ids strictly above this one. */
  afterId?: string | undefined;
  limit: number;
}

/** Who a ticket is transferred to. */
export type TransferredAttendee = Pick<TicketRow, 'attendee_first_name' | 'attendee_last_name'> & { attendee_email: string };

export type NewTicket = Pick<
  TicketRow,
  | 'organisation_id'
  | 'barcode'
  | 'order_id'
  | 'position'
  | 'event_id'
  | 'ticket_type_id'
  | 'pool_id'
  | 'ticket_type_name'
  | 'attendee_first_name'
  | 'attendee_last_name'
  | 'attendee_email'
  | 'price_cents'
  | 'comp'
  | 'comp_batch_id'
>;

const COLUMNS: Array<keyof NewTicket> = [
  'organisation_id',
  'barcode',
  'order_id',
  'position',
  'event_id',
  'ticket_type_id',
  'pool_id',
  'ticket_type_name',
  'attendee_first_name',
  'attendee_last_name',
  'attendee_email',
  'price_cents',
  'comp',
  'comp_batch_id',
];

export class TicketRepository {
  constructor(private readonly pool: Pool) {}

  async find(organisationId: number, id: string): Promise<TicketRow | undefined> {
    const { rows } = await this.pool.query<TicketRow>('SELECT * FROM tickets WHERE id = $1 AND organisation_id = $2', [id, organisationId]);
    return rows[0];
  }

  async forOrders(organisationId: number, orderIds: string[], client: Pool | PoolClient = this.pool): Promise<TicketRow[]> {
    if (orderIds.length === 0) return [];
    const { rows } = await client.query<TicketRow>(
      'SELECT * FROM tickets WHERE order_id = ANY($1::uuid[]) AND organisation_id = $2 ORDER BY order_id, position',
      [orderIds, organisationId],
    );
    return rows;
  }

  async findByBarcode(organisationId: number, barcode: string): Promise<TicketRow | undefined> {
    const { rows } = await this.pool.query<TicketRow>('SELECT * FROM tickets WHERE barcode = $1 AND organisation_id = $2', [barcode, organisationId]);
    return rows[0];
  }

  /** By id; one row more than the limit tells whether another page exists. */
  async listForEvent(filter: AttendeeFilter): Promise<TicketRow[]> {
    const values: unknown[] = [filter.organisationId, filter.eventId];
    const where = ['organisation_id = $1', 'event_id = $2'];
    if (filter.checkedIn === true) where.push("status = 'checked_in'");
    else if (filter.checkedIn === false) where.push("status IN ('valid', 'refunded')");
    else where.push("status <> 'void'");
    if (filter.updatedSince) {
      values.push(filter.updatedSince);
      where.push(`updated_at >= $${values.length}`);
    }
    if (filter.afterId !== undefined) {
      values.push(filter.afterId);
      where.push(`id > $${values.length}::bigint`);
    }
    values.push(filter.limit + 1);
    const { rows } = await this.pool.query<TicketRow>(`SELECT * FROM tickets WHERE ${where.join(' AND ')} ORDER BY id LIMIT $${values.length}`, values);
    return rows;
  }

  /**
   * The first scan of a valid ticket, as one conditional statement: of any
   * number of concurrent scans exactly one gets the row back; the others
   * wait for its row lock, see the status it wrote and get nothing.
   */
  async markCheckedIn(client: PoolClient, id: string): Promise<TicketRow | undefined> {
    const { rows } = await client.query<TicketRow>(
      `UPDATE tickets SET status = 'checked_in', checked_in_at = now(), updated_at = now()
       WHERE id = $1 AND status = 'valid' RETURNING *`,
      [id],
    );
    return rows[0];
  }

  /** The organisation's ticket, locked until the transaction ends: changes to one ticket queue on its row. */
  async lock(client: PoolClient, organisationId: number, id: string): Promise<TicketRow | undefined> {
    const { rows } = await client.query<TicketRow>('SELECT * FROM tickets WHERE id = $1 AND organisation_id = $2 FOR UPDATE', [id, organisationId]);
    return rows[0];
  }

  /** A new attendee and a new barcode: the old barcode no longer names any ticket. */
  async transfer(client: PoolClient, id: string, attendee: TransferredAttendee, barcode: string): Promise<TicketRow> {
    const { rows } = await client.query<TicketRow>(
      `UPDATE tickets SET attendee_first_name = $2, attendee_last_name = $3, attendee_email = $4, barcode = $5, updated_at = now()
       WHERE id = $1 RETURNING *`,
      [id, attendee.attendee_first_name, attendee.attendee_last_name, attendee.attendee_email, barcode],
    );
    return rows[0]!;
  }

  /**
   * Refunds tickets of one order (of those named, or all when none are):
   * valid ones, and checked-in ones a scan raced the refund to, since the
   * money has already gone back. Tickets already refunded or void are left
   * as they are, so a repeat changes nothing.
   */
  async markRefunded(client: PoolClient, organisationId: number, orderId: string, ids: string[] | null): Promise<TicketRow[]> {
    const { rows } = await client.query<TicketRow>(
      `UPDATE tickets SET status = 'refunded', updated_at = now()
       WHERE order_id = $1 AND organisation_id = $2 AND status IN ('valid', 'checked_in') AND ($3::bigint[] IS NULL OR id = ANY($3::bigint[]))
       RETURNING *`,
      [orderId, organisationId, ids],
    );
    return rows;
  }

  /** Voids a ticket and marks its stock as owed back to the pool. */
  async markVoid(client: PoolClient, id: string, reason: string | null): Promise<TicketRow> {
    const { rows } = await client.query<TicketRow>(
      `UPDATE tickets SET status = 'void', void_reason = $2, voided_at = now(), restock_pending = true, updated_at = now()
       WHERE id = $1 RETURNING *`,
      [id, reason],
    );
    return rows[0]!;
  }

  /** The stock of a void ticket is back in the pool. */
  async markRestocked(id: string): Promise<void> {
    await this.pool.query('UPDATE tickets SET restock_pending = false WHERE id = $1', [id]);
  }

  /** Void tickets whose stock is still owed, voided before `before`, oldest first. */
  async restockDue(before: Date, limit: number): Promise<TicketRow[]> {
    const { rows } = await this.pool.query<TicketRow>(
      'SELECT * FROM tickets WHERE restock_pending AND voided_at < $1 ORDER BY voided_at LIMIT $2',
      [before, limit],
    );
    return rows;
  }

  /** Serialises issuing for one order across processes until the transaction ends. */
  async lockOrder(client: PoolClient, orderId: string): Promise<void> {
    await client.query("SELECT pg_advisory_xact_lock(hashtextextended('tickets-for-order:' || $1, 0))", [orderId]);
  }

  /** Inserts in the given order (ids ascend with it): by `position` for an order, as listed for a comp batch. */
  async insertMany(client: PoolClient, tickets: NewTicket[]): Promise<TicketRow[]> {
    if (tickets.length === 0) return [];
    // One statement for the whole order or batch: one array parameter per column.
    const arrays = COLUMNS.map((column) => tickets.map((ticket) => ticket[column]));
    const { rows } = await client.query<TicketRow>(
      `INSERT INTO tickets (${COLUMNS.join(', ')})
       SELECT ${COLUMNS.join(', ')} FROM unnest($1::bigint[], $2::text[], $3::uuid[], $4::int[], $5::bigint[], $6::bigint[], $7::bigint[],
                            $8::text[], $9::text[], $10::text[], $11::text[], $12::bigint[], $13::boolean[], $14::text[])
              WITH ORDINALITY AS t(${COLUMNS.join(', ')}, ordinal)
        ORDER BY ordinal
       RETURNING *`,
      arrays,
    );
    return rows.sort((a, b) => (a.position ?? 0) - (b.position ?? 0) || Number(BigInt(a.id) - BigInt(b.id)));
  }
}
