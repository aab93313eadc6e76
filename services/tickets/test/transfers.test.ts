/**
 * Transfers against the real tickets schema (D230, D231): the attendee and
 * the barcode change and `ticket.transferred` is written in one
 * transaction; a retry changes nothing; a checked-in ticket stays as it
 * is; concurrent transfers of one ticket apply one after the other. The
 * transfer's two emails (D413) are queued in the same transaction, once.
 */
import { create } from '@bufbuild/protobuf';
import { ApiError, createPool, gen, type Pool, type RequestContext } from '@partner-api/shared';
import { Transfers } from '../src/domain/transfers';
import { MailRepository } from '../src/storage/mail-repository';
import { TicketRepository } from '../src/storage/ticket-repository';
import { storedCompTicket } from './support';

const organisationId = 800_000 + Math.floor(Math.random() * 99_999);
const ctx: RequestContext = { organisationId, mode: 'live', keyId: 1, requestId: 'it' };
let pool: Pool;
let repository: TicketRepository;
let transfers: Transfers;

const issue = (email: string | null = 'ann@example.com') => storedCompTicket(pool, repository, organisationId, { attendee_email: email });

const transfer = (id: string, email: string, firstName?: string) =>
  transfers.transfer(ctx, create(gen.tickets.TransferTicketRequestSchema, { id: BigInt(id), attendee: { email, firstName } }));

async function transferredEvents(ticketId: string) {
  const { rows } = await pool.query<{ payload: { data: { object: { barcode: string; attendee: { email: string } }; previous_attendee_email: string } } }>(
    "SELECT payload FROM outbox WHERE event_type = 'ticket.transferred' AND partition_key = $1 ORDER BY id",
    [`ticket:${ticketId}`],
  );
  return rows.map((row) => ({ previous: row.payload.data.previous_attendee_email, to: row.payload.data.object.attendee.email, barcode: row.payload.data.object.barcode }));
}

beforeAll(() => {
  pool = createPool({ url: process.env.DATABASE_URL!, schema: 'tickets', max: 4 });
  repository = new TicketRepository(pool);
  transfers = new Transfers(pool, repository, new MailRepository(pool));
});
afterAll(async () => {
  await pool.end();
});

describe('transferring a ticket', () => {
  it('gives it the new attendee and a new barcode, retires the old barcode, and writes ticket.transferred with the previous email', async () => {
    const ticket = await issue();
    const moved = await transfer(ticket.id, 'ben@example.com', 'Ben');

    expect(moved).toMatchObject({ status: 'valid', attendee: { email: 'ben@example.com', firstName: 'Ben', lastName: undefined } });
    expect(moved.barcode).not.toBe(ticket.barcode);
    expect(moved.barcode).toMatch(/^[0-9A-Za-z]{22}$/);
    expect(await repository.findByBarcode(organisationId, ticket.barcode)).toBeUndefined();
    expect((await repository.findByBarcode(organisationId, moved.barcode!))?.id).toBe(ticket.id);
    expect(await transferredEvents(ticket.id)).toEqual([{ previous: 'ann@example.com', to: 'ben@example.com', barcode: moved.barcode }]);
  });

  it("queues the new attendee's email with the new code and the previous attendee's note, once however often it is retried", async () => {
    const ticket = await issue();
    const moved = await transfer(ticket.id, 'cat@example.com', 'Cat');
    await transfer(ticket.id, 'cat@example.com', 'Cat');
    const { rows } = await pool.query('SELECT kind, recipient, recipient_name, barcode, state FROM ticket_mails WHERE ticket_id = $1 ORDER BY id', [ticket.id]);
    expect(rows).toEqual([
      { kind: 'transfer_received', recipient: 'cat@example.com', recipient_name: 'Cat', barcode: moved.barcode, state: 'pending' },
      { kind: 'transfer_moved', recipient: 'ann@example.com', recipient_name: 'Ann Lee', barcode: null, state: 'pending' },
    ]);
  });

  it('changes nothing when retried: same barcode, no second event', async () => {
    const ticket = await issue();
    const first = await transfer(ticket.id, 'cleo@example.com');
    const again = await transfer(ticket.id, 'CLEO@example.com');
    expect(again.barcode).toBe(first.barcode);
    expect(await transferredEvents(ticket.id)).toHaveLength(1);
  });

  it('hands on an empty previous email for a ticket issued without one', async () => {
    const ticket = await issue(null);
    await transfer(ticket.id, 'dan@example.com');
    expect((await transferredEvents(ticket.id)).map((event) => event.previous)).toEqual(['']);
  });

  it('refuses a checked-in ticket and another organisation\'s, changing nothing', async () => {
    const ticket = await issue();
    await pool.query("UPDATE tickets SET status = 'checked_in', checked_in_at = now() WHERE id = $1", [ticket.id]);
    await expect(transfer(ticket.id, 'eve@example.com')).rejects.toMatchObject({ code: 'parameter_invalid', httpStatus: 422 });
    const other = await transfers
      .transfer({ ...ctx, organisationId: organisationId + 1 }, create(gen.tickets.TransferTicketRequestSchema, { id: BigInt(ticket.id), attendee: { email: 'eve@example.com' } }))
      .catch((error: unknown) => error);
    expect(other).toBeInstanceOf(ApiError);
    expect((other as ApiError).code).toBe('resource_missing');
    expect((await repository.find(organisationId, ticket.id))).toMatchObject({ barcode: ticket.barcode, attendee_email: 'ann@example.com' });
    expect(await transferredEvents(ticket.id)).toEqual([]);
  });

  it('applies concurrent transfers one after the other, each event naming the attendee the last one left', async () => {
    const ticket = await issue();
    const moves = await Promise.all(['f1@example.com', 'f2@example.com', 'f3@example.com'].map((email) => transfer(ticket.id, email)));
    const events = await transferredEvents(ticket.id);

    expect(events).toHaveLength(3);
    // A chain: each transfer starts from where the previous one left the ticket.
    expect(events[0]!.previous).toBe('ann@example.com');
    for (let i = 1; i < events.length; i++) expect(events[i]!.previous).toBe(events[i - 1]!.to);
    const final = await repository.find(organisationId, ticket.id);
    expect([final?.attendee_email, final?.barcode]).toEqual([events[2]!.to, events[2]!.barcode]);
    expect(new Set(moves.map((move) => move.barcode)).size).toBe(3);
  });
});
