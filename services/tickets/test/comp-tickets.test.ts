/**
 * Issuing a comp batch against the real tickets schema, with inventory
 * played by a stand-in that records what it is asked: a batch is never
 * half-written (D60). Issuing that fails after the stock was taken gives
 * the stock back; a batch left unissued is given back by the recovery
 * loop, and a request still in flight then issues nothing; a retried batch
 * issues once.
 */
import { create } from '@bufbuild/protobuf';
import { ApiError, createLogger, createPool, gen, randomBase62, type Pool, type RequestContext } from '@partner-api/shared';
import { CompTickets, type CompInventory } from '../src/domain/comp-tickets';
import { CompRepository } from '../src/storage/comp-repository';
import { TicketRepository, type NewTicket, type TicketRow } from '../src/storage/ticket-repository';
import type { PoolClient } from 'pg';

const organisationId = 700_000 + Math.floor(Math.random() * 99_999);
const ctx: RequestContext = { organisationId, mode: 'live', keyId: 1, requestId: 'it' };
const logger = createLogger('it', 'silent');
let pool: Pool;

/** Inventory as the tickets service sees it: takes grant `granted` (or fail), returns are recorded. */
class StandInInventory {
  readonly takes: Array<{ batchId: string; mode: RequestContext['mode']; quantity: number }> = [];
  readonly returns: string[] = [];
  granted = Infinity;
  failTake: Error | undefined;
  /** Runs while a take is in flight (before it answers). */
  duringTake: (() => Promise<unknown>) | undefined;

  readonly client = {
    takeCompStock: async (request: { batchId?: string; quantity?: number }, callCtx: RequestContext) => {
      this.takes.push({ batchId: request.batchId!, mode: callCtx.mode, quantity: request.quantity! });
      if (this.failTake) throw this.failTake;
      await this.duringTake?.();
      return create(gen.inventory.TakeCompStockResponseSchema, {
        eventId: 42n,
        poolId: 7n,
        ticketTypeName: 'GA',
        granted: Math.min(this.granted, request.quantity!),
        eventTitle: 'Comp Night',
        eventStartsAt: '2027-01-01T09:00:00Z',
      });
    },
    returnStock: async (request: { batchId?: string }) => {
      this.returns.push(request.batchId!);
      return create(gen.inventory.ReturnStockResponseSchema, { returned: true });
    },
  } as unknown as CompInventory;
}

/** A ticket store whose writes fail, as a full disk or a lost connection would. */
class FailingTicketRepository extends TicketRepository {
  override async insertMany(_client: PoolClient, _tickets: NewTicket[]): Promise<TicketRow[]> {
    throw new Error('could not write tickets');
  }
}

const request = (batchId: string, emails = ['a@example.com', 'b@example.com', 'c@example.com']) =>
  create(gen.tickets.IssueCompTicketsRequestSchema, {
    eventIdOrSlug: 'comp-night',
    ticketTypeId: 3n,
    attendees: emails.map((email, i) => ({ email, name: `Guest ${i}` })),
    note: 'it',
    batchId,
  });

const batchState = async (id: string) => (await pool.query<{ state: string }>('SELECT state FROM comp_batches WHERE id = $1', [id])).rows[0]?.state;
const ticketCount = async (id: string) => Number((await pool.query<{ n: string }>('SELECT count(*) AS n FROM tickets WHERE comp_batch_id = $1', [id])).rows[0]!.n);
const emailCount = async (id: string) =>
  Number((await pool.query<{ n: string }>('SELECT count(*) AS n FROM comp_emails e JOIN tickets t ON t.id = e.ticket_id WHERE t.comp_batch_id = $1', [id])).rows[0]!.n);
const issuedEvents = async (id: string) =>
  Number(
    (
      await pool.query<{ n: string }>(
        "SELECT count(*) AS n FROM outbox o JOIN tickets t ON o.partition_key = 'ticket:' || t.id WHERE t.comp_batch_id = $1 AND o.event_type = 'ticket.issued'",
        [id],
      )
    ).rows[0]!.n,
  );

function comps(inventory: StandInInventory, tickets = new TicketRepository(pool)) {
  return new CompTickets(pool, tickets, new CompRepository(pool), inventory.client, logger);
}

beforeAll(() => {
  pool = createPool({ url: process.env.DATABASE_URL!, schema: 'tickets', max: 4 });
});
afterAll(async () => {
  await pool.end();
});

describe('issuing a comp batch', () => {
  it('writes the tickets, one ticket.issued and one queued email each, and marks the batch issued, in one transaction', async () => {
    const inventory = new StandInInventory();
    const batchId = `it_${randomBase62(12)}`;
    const batch = await comps(inventory).issue(ctx, request(batchId));
    expect(batch).toMatchObject({ object: 'comp_ticket_batch', livemode: true, dryRun: false, issued: 3, failed: [] });
    expect(batch.tickets!.map((ticket) => [ticket.comp, ticket.price, ticket.orderId])).toEqual([
      [true, '0.00', undefined],
      [true, '0.00', undefined],
      [true, '0.00', undefined],
    ]);
    expect(await batchState(batchId)).toBe('issued');
    expect(await ticketCount(batchId)).toBe(3);
    expect(await issuedEvents(batchId)).toBe(3);
    expect(await emailCount(batchId)).toBe(3);
  });

  it('a retried batch answers with the first tickets and takes no more stock', async () => {
    const inventory = new StandInInventory();
    inventory.granted = 2;
    const batchId = `it_${randomBase62(12)}`;
    const first = await comps(inventory).issue(ctx, request(batchId));
    const again = await comps(inventory).issue(ctx, request(batchId));
    expect(again).toEqual(first);
    expect(again.failed).toEqual([{ email: 'c@example.com', reason: 'exceeds_stock' }]);
    expect(inventory.takes).toHaveLength(1);
    expect(await ticketCount(batchId)).toBe(2);
  });

  it('a test key counts through inventory and writes nothing', async () => {
    const inventory = new StandInInventory();
    inventory.granted = 1;
    const batchId = `it_${randomBase62(12)}`;
    const batch = await comps(inventory).issue({ ...ctx, mode: 'test' }, request(batchId));
    expect(batch).toMatchObject({ livemode: false, dryRun: true, issued: 1, tickets: [] });
    expect(batch.failed).toHaveLength(2);
    expect(inventory.takes).toEqual([{ batchId, mode: 'test', quantity: 3 }]);
    expect(await batchState(batchId)).toBeUndefined();
  });
});

describe('a batch is never half-written (D60)', () => {
  it('when writing the tickets fails after the stock was taken, the stock is given back and nothing is issued', async () => {
    const inventory = new StandInInventory();
    const batchId = `it_${randomBase62(12)}`;
    await expect(comps(inventory, new FailingTicketRepository(pool)).issue(ctx, request(batchId))).rejects.toThrow('could not write tickets');
    expect(inventory.returns).toEqual([batchId]);
    expect(await batchState(batchId)).toBe('returned');
    expect(await ticketCount(batchId)).toBe(0);
    expect(await emailCount(batchId)).toBe(0);
  });

  it('a retry after such a failure takes and issues again', async () => {
    const inventory = new StandInInventory();
    const batchId = `it_${randomBase62(12)}`;
    await expect(comps(inventory, new FailingTicketRepository(pool)).issue(ctx, request(batchId))).rejects.toThrow();
    const batch = await comps(inventory).issue(ctx, request(batchId));
    expect(batch.issued).toBe(3);
    expect(inventory.takes).toHaveLength(2);
    expect(await batchState(batchId)).toBe('issued');
  });

  it('when inventory refuses the take (4xx), nothing was taken and nothing is given back', async () => {
    const inventory = new StandInInventory();
    inventory.failTake = new ApiError('exceeds_availability', 'No tickets are left in this pool for comps.', 'attendees');
    const batchId = `it_${randomBase62(12)}`;
    await expect(comps(inventory).issue(ctx, request(batchId))).rejects.toMatchObject({ code: 'exceeds_availability' });
    expect(inventory.returns).toEqual([]);
    expect(await batchState(batchId)).toBe('returned');
  });

  it('when a retried batch is refused, whatever an earlier attempt took is given back', async () => {
    const inventory = new StandInInventory();
    const batchId = `it_${randomBase62(12)}`;
    // An earlier attempt recorded the batch and died around its take.
    await new CompRepository(pool).startBatch({ id: batchId, organisationId, eventIdOrSlug: 'comp-night', ticketTypeId: '3', poolId: null, requested: 3, note: null });
    inventory.failTake = new ApiError('event_not_on_sale', 'This event is cancelled: it takes no more comps.', 'event_id');
    await expect(comps(inventory).issue(ctx, request(batchId))).rejects.toMatchObject({ code: 'event_not_on_sale' });
    expect(inventory.returns).toEqual([batchId]);
    expect(await batchState(batchId)).toBe('returned');
  });

  it('when the take fails otherwise (it may have taken stock), the stock is given back', async () => {
    const inventory = new StandInInventory();
    inventory.failTake = new ApiError('hold_failed', 'Tickets could not be taken.');
    const batchId = `it_${randomBase62(12)}`;
    await expect(comps(inventory).issue(ctx, request(batchId))).rejects.toMatchObject({ code: 'hold_failed' });
    expect(inventory.returns).toEqual([batchId]);
    expect(await batchState(batchId)).toBe('returned');
  });

  it('the recovery loop gives back a batch left unissued, and the request still in flight then issues nothing', async () => {
    const inventory = new StandInInventory();
    const service = comps(inventory);
    const batchId = `it_${randomBase62(12)}`;
    // The process is as good as dead: while its take is in flight, the batch goes stale and the loop finds it.
    inventory.duringTake = async () => {
      await pool.query("UPDATE comp_batches SET updated_at = now() - interval '10 minutes' WHERE id = $1", [batchId]);
      expect(await service.returnStale(60_000, 1_000)).toBeGreaterThanOrEqual(1);
    };
    await expect(service.issue(ctx, request(batchId))).rejects.toMatchObject({ code: 'internal_error' });
    expect(inventory.returns).toContain(batchId);
    expect(await batchState(batchId)).toBe('returned');
    expect(await ticketCount(batchId)).toBe(0);
  });

  it('the recovery loop leaves a fresh batch alone', async () => {
    const inventory = new StandInInventory();
    const batchId = `it_${randomBase62(12)}`;
    await new CompRepository(pool).startBatch({ id: batchId, organisationId, eventIdOrSlug: 'x', ticketTypeId: '1', poolId: null, requested: 1, note: null });
    await comps(inventory).returnStale(60_000, 1_000);
    expect(inventory.returns).not.toContain(batchId);
    expect(await batchState(batchId)).toBe('taking');
    await pool.query("UPDATE comp_batches SET updated_at = now() - interval '10 minutes' WHERE id = $1", [batchId]);
    await comps(inventory).returnStale(60_000, 1_000);
    expect(inventory.returns).toContain(batchId);
    expect(await batchState(batchId)).toBe('returned');
  });
});
