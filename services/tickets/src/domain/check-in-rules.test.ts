import type { ApiError } from '@partner-api/shared';
import type { TicketRow } from '../storage/ticket-repository';
import { asCheckedIn, classifyScan, scanTarget } from './check-in-rules';

const failure = (work: () => unknown) => {
  try {
    work();
    return undefined;
  } catch (error) {
    const { code, param, httpStatus } = error as ApiError;
    return { code, param, httpStatus };
  }
};

const ticket = (overrides: Partial<TicketRow> = {}): TicketRow => ({
  id: '7',
  organisation_id: '3',
  barcode: 'AbCdEfGhIjKlMnOpQrStUv',
  order_id: '0b9c6b8e-9f6e-4c39-8f0e-5f8a4c1d2e3f',
  position: 0,
  event_id: '42',
  ticket_type_id: '1',
  pool_id: '1',
  ticket_type_name: 'GA',
  attendee_first_name: 'Ann',
  attendee_last_name: 'Lee',
  attendee_email: 'ann@example.com',
  price_cents: '5500',
  status: 'valid',
  comp: false,
  comp_batch_id: null,
  seat_label: null,
  checked_in_at: null,
  void_reason: null,
  voided_at: null,
  restock_pending: false,
  created_at: new Date('2026-10-01T00:00:00Z'),
  updated_at: new Date('2026-10-01T00:00:00Z'),
  ...overrides,
});

describe('scanTarget: which ticket the body names', () => {
  it('takes a code, without the white space a scanner adds around it', () => {
    expect(scanTarget({ code: ' AbCdEfGhIjKlMnOpQrStUv\r\n' })).toEqual({ by: 'code', code: 'AbCdEfGhIjKlMnOpQrStUv' });
  });

  it('takes a ticket id, with the code to compare when both are sent', () => {
    expect(scanTarget({ ticketId: 7n })).toEqual({ by: 'id', ticketId: 7n, code: undefined });
    expect(scanTarget({ ticketId: 7n, code: 'abc' })).toEqual({ by: 'id', ticketId: 7n, code: 'abc' });
  });

  it('answers neither with 400 parameter_missing', () => {
    expect(failure(() => scanTarget({}))).toEqual({ code: 'parameter_missing', param: 'code', httpStatus: 400 });
  });

  it.each([
    [{ code: '' }, 'code'],
    [{ code: '   ' }, 'code'],
    [{ code: 'x'.repeat(257) }, 'code'],
    [{ ticketId: 0n }, 'ticket_id'],
    [{ ticketId: -3n }, 'ticket_id'],
    [{ ticketId: 2n ** 63n }, 'ticket_id'],
  ])('refuses %p with 400 parameter_invalid', (request, param) => {
    expect(failure(() => scanTarget(request))).toEqual({ code: 'parameter_invalid', param, httpStatus: 400 });
  });
});

describe('classifyScan: what a scan of the ticket at this event means', () => {
  it('is a first scan for a valid ticket and a repeat for a checked-in one', () => {
    expect(classifyScan(ticket(), 42n)).toBe('first');
    expect(classifyScan(ticket({ status: 'checked_in' }), 42n)).toBe('repeat');
  });

  it.each(['refunded', 'void'] as const)('refuses a %s ticket with 422 ticket_void', (status) => {
    expect(failure(() => classifyScan(ticket({ status }), 42n))).toEqual({ code: 'ticket_void', param: null, httpStatus: 422 });
  });

  it.each(['valid', 'checked_in', 'refunded', 'void'] as const)('refuses a %s ticket of another event with 409 ticket_wrong_event first', (status) => {
    expect(failure(() => classifyScan(ticket({ status, event_id: '43' }), 42n))).toEqual({ code: 'ticket_wrong_event', param: null, httpStatus: 409 });
  });
});

describe('asCheckedIn', () => {
  it('is the ticket as a first scan leaves it, without touching the original', () => {
    const at = new Date('2026-11-22T09:30:00Z');
    const original = ticket();
    expect(asCheckedIn(original, at)).toEqual({ ...original, status: 'checked_in', checked_in_at: at, updated_at: at });
    expect(original.status).toBe('valid');
  });
});
