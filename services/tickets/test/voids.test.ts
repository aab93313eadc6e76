/**
 * Voids against the real tickets schema (D232, D233), with inventory played
 * by a stand-in that records restocks and can be made unreachable: the void
 * commits even when inventory cannot take the stock back, and the recovery
 * loop restocks it later, once; a repeated void changes nothing.
 */
import { create } from '@bufbuild/protobuf';
import { createLogger, createPool, gen, type Pool, type RequestContext } from '@partner-api/shared';
import { Voids, type VoidInventory } from '../src/domain/voids';
import { TicketRepository } from '../src/storage/ticket-repository';
import { storedCompTicket } from './support';

const organisationId = 900_000 + Math.floor(Math.random() * 99_999);
const ctx: RequestContext = { organisationId, mode: 'live', keyId: 1, requestId: 'it' };
let pool: Pool;
let repository: TicketRepository;

class StandInInventory {
  readonly restocks: Array<{ refundId: string; eventId: bigint; lines: Array<{ poolId: bigint; quantity: number }> }> = [];
  unreachable = false;
  readonly client = {
    restockRefund: async (request: { refundId?: string; eventId?: bigint; lines?: Array<{ poolId?: bigint; quantity?: number }> }) => {
      if (this.unreachable) throw new Error('inventory unreachable');
      this.restocks.push({ refundId: request.refundId!, eventId: request.eventId!, lines: request.lines!.map((line) => ({ poolId: line.poolId!, quantity: line.quantity! })) });
      return create(gen.inventory.RestockRefundResponseSchema, { returned: true });
    },
  } as unknown as VoidInventory;
}

const issue = () => storedCompTicket(pool, repository, organisationId);

const voidRequest = (id: string, reason = 'chargeback') => create(gen.tickets.VoidTicketRequestSchema, { id: BigInt(id), reason });

beforeAll(() => {
  pool = createPool({ url: process.env.DATABASE_URL!, schema: 'tickets', max: 4 });
  repository = new TicketRepository(pool);
});
afterAll(async () => {
  await pool.end();
});

describe('voiding a ticket', () => {
  it('makes it void with its reason and restocks its place once, a repeat changing nothing', async () => {
    const inventory = new StandInInventory();
    const voids = new Voids(pool, repository, inventory.client, createLogger('it', 'silent'));
    const ticket = await issue();

    const voided = await voids.void(ctx, voidRequest(ticket.id));
    expect(voided.status).toBe('void');
    const stored = await repository.find(organisationId, ticket.id);
    expect(stored).toMatchObject({ status: 'void', void_reason: 'chargeback', restock_pending: false });
    expect(inventory.restocks).toEqual([{ refundId: `void-${ticket.id}`, eventId: 11n, lines: [{ poolId: 13n, quantity: 1 }] }]);

    const again = await voids.void(ctx, voidRequest(ticket.id, 'another reason'));
    expect(again.updatedAt).toBe(voided.updatedAt);
    expect((await repository.find(organisationId, ticket.id))?.void_reason).toBe('chargeback');
    expect(inventory.restocks).toHaveLength(1);
  });

  it('commits the void while inventory is unreachable, and the recovery loop restocks it afterwards, once', async () => {
    const inventory = new StandInInventory();
    let now = new Date();
    const voids = new Voids(pool, repository, inventory.client, createLogger('it', 'silent'), () => now);
    const ticket = await issue();

    inventory.unreachable = true;
    await expect(voids.void(ctx, voidRequest(ticket.id))).resolves.toMatchObject({ status: 'void' });
    expect((await repository.find(organisationId, ticket.id))?.restock_pending).toBe(true);
    expect(await voids.restockDue(10_000)).toBe(0); // inventory still away: stays owed

    inventory.unreachable = false;
    await voids.restockDue(10_000, 1_000);
    expect(inventory.restocks.map((restock) => restock.refundId)).not.toContain(`void-${ticket.id}`); // voided under 10 s ago: not due yet
    now = new Date(Date.now() + 60_000);
    await voids.restockDue(10_000, 1_000);
    expect(inventory.restocks.filter((restock) => restock.refundId === `void-${ticket.id}`)).toHaveLength(1);
    expect((await repository.find(organisationId, ticket.id))?.restock_pending).toBe(false);
    await voids.restockDue(10_000, 1_000);
    expect(inventory.restocks.filter((restock) => restock.refundId === `void-${ticket.id}`)).toHaveLength(1);
  });

  it('refuses a checked-in ticket and another organisation\'s, changing nothing', async () => {
    const inventory = new StandInInventory();
    const voids = new Voids(pool, repository, inventory.client, createLogger('it', 'silent'));
    const ticket = await issue();
    await pool.query("UPDATE tickets SET status = 'checked_in', checked_in_at = now() WHERE id = $1", [ticket.id]);
    await expect(voids.void(ctx, voidRequest(ticket.id))).rejects.toMatchObject({ code: 'parameter_invalid', httpStatus: 422 });
    await expect(voids.void({ ...ctx, organisationId: organisationId + 1 }, voidRequest(ticket.id))).rejects.toMatchObject({ code: 'resource_missing' });
    expect(await repository.find(organisationId, ticket.id)).toMatchObject({ status: 'checked_in', void_reason: null, restock_pending: false });
    expect(inventory.restocks).toEqual([]);
  });
});
