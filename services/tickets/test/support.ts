/** What the tickets suites that work on a stored ticket share. */
import { inTransaction, randomBase62, type Pool } from '@partner-api/shared';
import type { NewTicket, TicketRepository, TicketRow } from '../src/storage/ticket-repository';

/** One comp ticket of the organisation, written straight to the tickets schema (Ann Lee, GA, event 11); `overrides` changes any column. */
export async function storedCompTicket(pool: Pool, repository: TicketRepository, organisationId: number, overrides: Partial<NewTicket> = {}): Promise<TicketRow> {
  const [row] = await inTransaction(pool, (client) =>
    repository.insertMany(client, [
      {
        organisation_id: String(organisationId), barcode: randomBase62(22), order_id: null, position: null, event_id: '11', ticket_type_id: '12', pool_id: '13',
        ticket_type_name: 'GA', attendee_first_name: 'Ann', attendee_last_name: 'Lee', attendee_email: 'ann@example.com', price_cents: '0', comp: true, comp_batch_id: null,
        ...overrides,
      },
    ]),
  );
  return row!;
}
