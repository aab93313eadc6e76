import { createLogger, mailDomain, type MailMessage, type Mailer } from '@partner-api/shared';
import type { CompRepository, DueEmail } from '../storage/comp-repository';
import type { TicketRow } from '../storage/ticket-repository';
import { ticketsEnv } from '../config';
import { GuestEmails, RETRY_SCHEDULE_MS } from './guest-emails';
import { composeGuestEmail } from './guest-mailer';

const ticket = (id: string, overrides: Partial<TicketRow> = {}): TicketRow => ({
  id,
  organisation_id: '3',
  barcode: `Barcode${id}`.padEnd(22, 'x'),
  order_id: null,
  position: null,
  event_id: '42',
  ticket_type_id: '7',
  pool_id: '9',
  ticket_type_name: 'GA',
  attendee_first_name: 'Ann',
  attendee_last_name: 'Lee',
  attendee_email: 'ann@example.com',
  price_cents: '0',
  status: 'valid',
  comp: true,
  comp_batch_id: 'b1',
  seat_label: null,
  checked_in_at: null,
  void_reason: null,
  voided_at: null,
  restock_pending: false,
  created_at: new Date(),
  updated_at: new Date(),
  ...overrides,
});

/** The email rows as the repository keeps them, in memory. */
class Outbox {
  readonly outcome = new Map<string, { state: string; retryInMs?: number | null; error?: string }>();
  constructor(
    private readonly due: DueEmail[],
    private readonly tickets: Map<string, TicketRow>,
  ) {}

  readonly repository = {
    claimDueEmails: async () => this.due.splice(0),
    ticket: async (id: string) => this.tickets.get(id),
    emailSent: async (id: string) => void this.outcome.set(id, { state: 'sent' }),
    emailSkipped: async (id: string) => void this.outcome.set(id, { state: 'skipped' }),
    emailFailed: async (id: string, error: string, retryInMs: number | null) => void this.outcome.set(id, { state: retryInMs === null ? 'failed' : 'pending', retryInMs, error }),
  } as unknown as CompRepository;
}

class RecordingMailer implements Mailer {
  readonly sent: MailMessage[] = [];
  failFor = new Set<string>();
  async send(email: MailMessage): Promise<void> {
    if (this.failFor.has(email.messageId)) throw new Error('450 mailbox busy');
    this.sent.push(email);
  }
  async close(): Promise<void> {}
}

const due = (ticketId: string, attempts = 1): DueEmail => ({ ticket_id: ticketId, attempts, event_title: 'Comp Night', event_starts_at: new Date('2027-01-01T09:00:00Z') });
const logger = createLogger('unit', 'silent');

describe('sending guest emails', () => {
  it('sends each due email to the ticket\'s attendee and marks it sent', async () => {
    const outbox = new Outbox([due('1'), due('2')], new Map([['1', ticket('1')], ['2', ticket('2', { attendee_email: 'bob@example.com', attendee_first_name: null, attendee_last_name: null })]]));
    const mailer = new RecordingMailer();
    expect(await new GuestEmails(outbox.repository, mailer, logger, 'example.com').sendDue()).toBe(2);
    expect(mailer.sent.map((email) => [email.to, email.toName, email.messageId])).toEqual([
      ['ann@example.com', 'Ann Lee', '<ticket-1@example.com>'],
      ['bob@example.com', null, '<ticket-2@example.com>'],
    ]);
    expect([...outbox.outcome.values()].map((outcome) => outcome.state)).toEqual(['sent', 'sent']);
  });

  it('when the mail system refuses, retries on the schedule and gives up after its last step', async () => {
    const outbox = new Outbox([due('1', 1), due('2', RETRY_SCHEDULE_MS.length + 1)], new Map([['1', ticket('1')], ['2', ticket('2')]]));
    const mailer = new RecordingMailer();
    mailer.failFor = new Set(['<ticket-1@example.com>', '<ticket-2@example.com>']);
    expect(await new GuestEmails(outbox.repository, mailer, logger, 'example.com').sendDue()).toBe(0);
    expect(outbox.outcome.get('1')).toEqual({ state: 'pending', retryInMs: RETRY_SCHEDULE_MS[0], error: '450 mailbox busy' });
    expect(outbox.outcome.get('2')).toMatchObject({ state: 'failed', retryInMs: null });
  });

  it('skips tickets that are no longer valid (voided or refunded before the send)', async () => {
    const outbox = new Outbox([due('1'), due('2')], new Map([['1', ticket('1', { status: 'void' })], ['2', ticket('2', { status: 'checked_in' })]]));
    const mailer = new RecordingMailer();
    await new GuestEmails(outbox.repository, mailer, logger, 'example.com').sendDue();
    expect(outbox.outcome.get('1')!.state).toBe('skipped');
    expect(outbox.outcome.get('2')!.state).toBe('sent');
  });
});

describe('what a guest email says', () => {
  it('names the event, the ticket type, the ticket and its barcode', () => {
    const email = composeGuestEmail(
      { id: '55', barcode: 'AbCdEfGhIjKlMnOpQrStUv', ticketTypeName: 'VIP', firstName: 'Ann', lastName: null, email: 'ann@example.com', eventTitle: 'Comp Night', eventStartsAt: new Date('2027-01-01T09:00:00Z') },
      'example.com',
    );
    expect(email).toMatchObject({ to: 'ann@example.com', toName: 'Ann', subject: 'Your ticket to Comp Night', messageId: '<ticket-55@example.com>' });
    expect(email.text).toContain('Hi Ann,');
    expect(email.text).toContain('complimentary VIP ticket to Comp Night (starts 2027-01-01T09:00:00Z)');
    expect(email.text).toContain('Barcode: AbCdEfGhIjKlMnOpQrStUv');
  });
});

describe('mail settings', () => {
  const base = { OPS_PORT: '0' };
  it('logs by default and needs SMTP_URL for smtp', () => {
    expect(ticketsEnv.parse(base)).toMatchObject({ GUEST_MAILER: 'log' });
    expect(ticketsEnv.safeParse({ ...base, GUEST_MAILER: 'smtp' }).success).toBe(false);
    expect(ticketsEnv.parse({ ...base, GUEST_MAILER: 'smtp', SMTP_URL: 'smtp://mailer:pw@127.0.0.1:2525' })).toMatchObject({ GUEST_MAILER: 'smtp' });
  });

  it('names Message-IDs after the sender\'s domain', () => {
    expect(mailDomain('Tickets <tickets@mail.example.com>')).toBe('mail.example.com');
    expect(mailDomain('tickets@example.org')).toBe('example.org');
  });
});
