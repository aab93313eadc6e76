/**
 * The door: pick one of the organisation's events, then type or paste
 * (or scan with a keyboard-wedge scanner) one ticket code after another.
 * Each code is checked in with the tickets service's CheckIn, the result
 * is shown large, and the page comes back with the field empty and
 * focused for the next code. Every attempt is in the audit log.
 */
import type { MessageShape } from '@bufbuild/protobuf';
import { Router, type Request, type Response } from 'express';
import { ApiError, MAX_TICKET_CODE_LENGTH, type gen, type Logger, type RequestContext } from '@partner-api/shared';
import type { DashboardDeps } from '../deps';
import { organisationEvent } from '../organisation-event';
import { requireMember, serviceContext, type SignedInLocals } from '../signed-in';
import { render, type PageOptions } from '../views';
import { barcodeTail, customerName } from './orders';

type Event = MessageShape<typeof gen.inventory.EventSchema>;
type Ticket = MessageShape<typeof gen.tickets.TicketSchema>;


/** What the door shows for a scan (D335): `tone` picks the colour, `alert` whether it interrupts a screen reader. */
export interface DoorResult {
  outcome: 'checked_in' | 'already_checked_in' | 'ticket_void' | 'ticket_wrong_event' | 'unknown_code' | 'invalid_code' | 'unanswered';
  tone: 'admit' | 'warn' | 'stop';
  heading: string;
  detail: string;
  ticket?: { id: string; attendeeName: string; typeName: string; seat?: string; checkedInAt?: string };
}

const ticketOf = (ticket: Ticket | undefined): DoorResult['ticket'] =>
  ticket && {
    id: String(ticket.id),
    attendeeName: customerName(ticket.attendee) || ticket.attendee?.email || 'No name given',
    typeName: ticket.ticketTypeName,
    seat: ticket.seatLabel,
    checkedInAt: ticket.checkedInAt,
  };

/** The spec's check-in results and error codes as the door shows them. */
export function doorResult(outcome: { result: string; ticket?: Ticket } | ApiError): DoorResult {
  if (!(outcome instanceof ApiError)) {
    const ticket = ticketOf(outcome.ticket);
    if (outcome.result === 'checked_in') return { outcome: 'checked_in', tone: 'admit', heading: 'Admitted', detail: `${ticket?.attendeeName ?? ''} · ${ticket?.typeName ?? ''}`, ticket };
    return {
      outcome: 'already_checked_in',
      tone: 'warn',
      heading: 'Already checked in',
      detail: 'This ticket was used before: check with the person before letting them in again.',
      ticket,
    };
  }
  switch (outcome.code) {
    case 'ticket_void':
      return { outcome: 'ticket_void', tone: 'stop', heading: 'Do not admit: void or refunded', detail: outcome.message };
    case 'ticket_wrong_event':
      return { outcome: 'ticket_wrong_event', tone: 'stop', heading: 'Wrong event', detail: `This ticket is not for this event. ${outcome.message}` };
    case 'resource_missing':
      return { outcome: 'unknown_code', tone: 'stop', heading: 'Unknown code', detail: 'No ticket of your organisation has this code. Check it was typed or scanned whole.' };
    default:
      return { outcome: 'invalid_code', tone: 'stop', heading: 'Not a ticket code', detail: outcome.message };
  }
}

export function doorRoutes(deps: DashboardDeps, logger: Logger): Router {
  const router = Router();

  const eventOf = (ctx: RequestContext, id: string): Promise<Event> => organisationEvent(deps.inventory, ctx, id);

  async function page(req: Request, res: Response, signedIn: SignedInLocals, event: Event | undefined, options: Omit<PageOptions, 'title'> = {}): Promise<void> {
    // Events whose doors can open: published and not yet ended.
    const events = event ? [] : (await deps.inventory.listEvents({ status: 'published', time: 'upcoming', page: { limit: 100, after: '' } }, serviceContext(signedIn))).data;
    render(req, res, 'door', { title: event ? `Door · ${event.title}` : 'Door', event, events, ...options });
  }

  router.get('/door', async (req, res) => {
    const signedIn = requireMember(res, 'door');
    const chosen = typeof req.query.event === 'string' && req.query.event !== '' ? await eventOf(serviceContext(signedIn), req.query.event) : undefined;
    await page(req, res, signedIn, chosen);
  });

  router.post('/door', async (req, res) => {
    const signedIn = requireMember(res, 'door');
    const ctx = serviceContext(signedIn);
    const form = req.body as Record<string, string | undefined>;
    const event = await eventOf(ctx, String(form.event ?? ''));
    const code = typeof form.code === 'string' ? form.code.trim() : '';
    if (!code) return page(req, res, signedIn, event, { status: 400, error: 'Type or scan a ticket code.', errorField: 'code' });

    let result: DoorResult;
    if (code.length > MAX_TICKET_CODE_LENGTH) {
      result = doorResult(new ApiError('parameter_invalid', `A ticket code is at most ${MAX_TICKET_CODE_LENGTH} characters.`, 'code'));
    } else {
      try {
        const checkIn = await deps.tickets.checkIn({ eventIdOrSlug: String(event.id), code }, ctx);
        result = doorResult({ result: checkIn.result, ticket: checkIn.ticket });
      } catch (error) {
        if (error instanceof ApiError && error.httpStatus < 500) result = doorResult(error);
        else {
          // At the door a failed call is one more scan to try, not an error page that loses the field.
          logger.error({ err: error, eventId: String(event.id) }, 'door check-in failed');
          result = { outcome: 'unanswered', tone: 'stop', heading: 'Not checked', detail: 'The ticket service did not answer. Scan the code again.' };
        }
      }
    }
    await deps.audit.record(signedIn.actor, 'door.check_in', result.ticket ? `ticket ${result.ticket.id}` : `code ${barcodeTail(code)}`, {
      event_id: Number(event.id),
      result: result.outcome,
      ...(signedIn.mode === 'test' ? { dry_run: true } : {}),
    });
    const status = { checked_in: 200, already_checked_in: 200, ticket_void: 422, ticket_wrong_event: 409, unknown_code: 404, invalid_code: 400, unanswered: 503 }[result.outcome];
    await page(req, res, signedIn, event, { status, result });
  });

  return router;
}
