/**
 * The dashboard's lookup of a ticket by its code (D369) against the real
 * tickets schema: the organisation's own ticket, found whatever white space
 * a scanner left around the code, and nothing checked in by reading it.
 */
import { createPool, randomBase62, type ApiError, type Pool, type RequestContext } from '@partner-api/shared';
import { Tickets } from '../src/domain/tickets';
import { TicketRepository } from '../src/storage/ticket-repository';
import { storedCompTicket } from './support';

const organisationId = 910_000 + Math.floor(Math.random() * 89_999);
const ctx = (organisation: number): RequestContext => ({ organisationId: organisation, mode: 'live', keyId: 1, requestId: 'it' });
let pool: Pool;
let repository: TicketRepository;
let tickets: Tickets;

const issue = () => storedCompTicket(pool, repository, organisationId);

const refusal = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error as ApiError);

beforeAll(() => {
  pool = createPool({ url: process.env.DATABASE_URL!, schema: 'tickets', max: 4 });
  repository = new TicketRepository(pool);
  tickets = new Tickets(pool, repository);
});
afterAll(async () => {
  await pool.end();
});

it('finds the organisation’s ticket by its code, a scanner’s line end and all, without checking it in', async () => {
  const ticket = await issue();

  const found = await tickets.findByCode(ctx(organisationId), `  ${ticket.barcode}\r\n`);

  expect(found).toMatchObject({ id: BigInt(ticket.id), barcode: ticket.barcode, status: 'valid', checkedInAt: undefined });
  expect((await repository.find(organisationId, ticket.id))!.checked_in_at).toBeNull();
});

it('answers resource_missing for another organisation’s code and for one that is nobody’s; parameter_invalid for no code or too long a one', async () => {
  const ticket = await issue();

  expect(await refusal(tickets.findByCode(ctx(organisationId + 1), ticket.barcode))).toMatchObject({ code: 'resource_missing', param: 'code' });
  expect(await refusal(tickets.findByCode(ctx(organisationId), randomBase62(22)))).toMatchObject({ code: 'resource_missing', param: 'code' });
  expect(await refusal(tickets.findByCode(ctx(organisationId), '   '))).toMatchObject({ code: 'parameter_invalid', param: 'code' });
  expect(await refusal(tickets.findByCode(ctx(organisationId), 'x'.repeat(257)))).toMatchObject({ code: 'parameter_invalid', param: 'code' });
});
