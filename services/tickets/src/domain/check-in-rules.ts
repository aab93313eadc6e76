/**
 * The rules of a scan at the door, without storage: which ticket the body
 * names, and what a scan of that ticket at this event means.
 */
import { ApiError, MAX_TICKET_CODE_LENGTH } from '@partner-api/shared';
import type { TicketRow } from '../storage/ticket-repository';

const MAX_ID = 2n ** 63n - 1n;

/** The ticket a check-in names: by id (and then `code`, when sent, must be its barcode) or by barcode. */
export type ScanTarget = { by: 'id'; ticketId: bigint; code: string | undefined } | { by: 'code'; code: string };

/** A scanned or typed code without the white space around it (a scanner's line end); 1 to MAX_TICKET_CODE_LENGTH characters. */
export function ticketCode(raw: string): string {
  const code = raw.trim();
  if (code.length === 0 || code.length > MAX_TICKET_CODE_LENGTH) {
    throw new ApiError('parameter_invalid', `code must be 1 to ${MAX_TICKET_CODE_LENGTH} characters.`, 'code');
  }
  return code;
}

/**
 * `code` (scanned barcode; white space around it, such as a scanner's line
 * end, is dropped) or `ticket_id`; neither is `400 parameter_missing`.
 */
export function scanTarget(request: { code?: string | undefined; ticketId?: bigint | undefined }): ScanTarget {
  const code = request.code === undefined ? undefined : ticketCode(request.code);
  if (request.ticketId !== undefined) {
    if (request.ticketId <= 0n || request.ticketId > MAX_ID) throw new ApiError('parameter_invalid', 'ticket_id must be a positive integer.', 'ticket_id');
    return { by: 'id', ticketId: request.ticketId, code };
  }
  if (code === undefined) throw new ApiError('parameter_missing', 'Send code (the scanned barcode) or ticket_id.', 'code');
  return { by: 'code', code };
}

/** `first`: the ticket is valid and this scan checks it in; `repeat`: it already was. */
export type ScanVerdict = 'first' | 'repeat';

/**
 * Wrong event first (the ticket does not belong at this door, whatever its
 * state), then refunded or void, then the check-in state.
 */
export function classifyScan(ticket: Pick<TicketRow, 'event_id' | 'status'>, eventId: bigint): ScanVerdict {
  if (BigInt(ticket.event_id) !== eventId) {
    throw new ApiError('ticket_wrong_event', `This ticket is for event ${ticket.event_id}, not event ${eventId}.`, null);
  }
  switch (ticket.status) {
    case 'refunded':
      throw new ApiError('ticket_void', 'This ticket was refunded and cannot be checked in.', null);
    case 'void':
      throw new ApiError('ticket_void', 'This ticket was voided and cannot be checked in.', null);
    case 'checked_in':
      return 'repeat';
    case 'valid':
      return 'first';
  }
}

/** The ticket as a first scan at `at` leaves it: what a test key's dry run shows without storing it. */
export function asCheckedIn<T extends TicketRow>(ticket: T, at: Date): T {
  return { ...ticket, status: 'checked_in', checked_in_at: at, updated_at: at };
}
