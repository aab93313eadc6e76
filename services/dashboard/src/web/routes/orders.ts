/**
 * Orders and tickets: the organisation's orders (newest first, by status
 * and event, the API's cursor), a search by order or ticket id, one order
 * with its tickets, and the operations partnerctl has: refund (whole or by
 * tickets), transfer and void. Each operation has a confirmation page
 * (GET) before its POST; refusals of the services are shown on the page.
 * An order's page also lists its ticket emails and resends them (a button:
 * nothing changes but one more email, and the tickets service limits them).
 */
import { randomUUID } from 'node:crypto';
import type { MessageShape } from '@bufbuild/protobuf';
import { Router, type Request, type Response } from 'express';
import { ApiError, formatCents, isUuid, MAX_TICKET_CODE_LENGTH, parseCents, type gen, type RequestContext } from '@partner-api/shared';
import { DashboardError, notFound } from '../../domain/dashboard-error';
import { can } from '../../domain/roles';
import type { DashboardDeps } from '../deps';
import { asRefusal } from '../refusals';
import { requireMember, serviceContext, type SignedInLocals } from '../signed-in';
import { render, renderRefusal, type PageOptions } from '../views';

type Order = MessageShape<typeof gen.orders.OrderSchema>;
type Ticket = MessageShape<typeof gen.tickets.TicketSchema>;
type Form = Record<string, string | string[] | undefined>;

const PAGE_SIZE = 25;
const MAX_REASON = 500;
const ID = /^[1-9][0-9]{0,17}$/;
const AMOUNT = /^[0-9]{1,7}(\.[0-9]{1,2})?$/;

/** What ListOrders filters by: the spec's `status` query (`refunded` takes partial refunds too). */
export const STATUS_FILTERS = [
  { value: 'all', label: 'All orders' },
  { value: 'completed', label: 'Completed, nothing refunded' },
  { value: 'refunded', label: 'Refunded, wholly or in part' },
] as const;

const text = (value: unknown): string => (Array.isArray(value) ? text(value[0]) : typeof value === 'string' ? value.trim() : '');
const list = (value: unknown): string[] => (Array.isArray(value) ? value.map(text) : typeof value === 'string' ? [value.trim()] : []).filter(Boolean);

/** The service's parameter names as the dashboard's form fields. */
const FIELDS: Record<string, string> = {
  ticket_ids: 'tickets',
  amount: 'amount',
  reason: 'reason',
  'attendee.email': 'email',
  'attendee.first_name': 'first_name',
  'attendee.last_name': 'last_name',
};

const refused = (error: unknown): never => {
  throw asRefusal(error, FIELDS);
};

export const customerName = (customer: { firstName?: string; lastName?: string } | undefined): string => [customer?.firstName, customer?.lastName].filter(Boolean).join(' ');
/** Enough of a barcode to tell tickets apart on screen, not enough to copy one to the door. */
export const barcodeTail = (barcode: string): string => (barcode ? `…${barcode.slice(-4)}` : '');

/** Test data is read-only, as for test keys; transfers and voids have no dry run, so the dashboard does not send them. */
function requireLive(signedIn: SignedInLocals): void {
  if (signedIn.mode !== 'live') throw new DashboardError(409, 'You are viewing test data, which is read-only. Switch to live data to refund, transfer or void.');
}

interface RefundChoice {
  scope: 'all' | 'chosen';
  tickets: Ticket[];
  amount: string | undefined;
  reason: string | undefined;
  restock: boolean;
}

export function orderRoutes(deps: DashboardDeps): Router {
  const router = Router();

  async function orderOf(ctx: RequestContext, id: string): Promise<Order> {
    if (!isUuid(id)) throw notFound('order');
    return deps.orders.getOrder({ id }, ctx).catch(refused);
  }

  function ticketOf(order: Order, id: string): Ticket {
    const ticket = ID.test(id) ? order.tickets.find((candidate) => candidate.id === BigInt(id)) : undefined;
    if (!ticket) throw notFound('ticket');
    return ticket;
  }

  /** Event titles for the filter and the table; the list works without them. */
  async function eventsOf(ctx: RequestContext): Promise<Array<{ id: string; title: string }>> {
    try {
      const { data } = await deps.inventory.listEvents({ status: 'all', time: 'all', page: { limit: 100, after: '' } }, ctx);
      return data.map((event) => ({ id: String(event.id), title: event.title }));
    } catch {
      return [];
    }
  }

  async function listPage(req: Request, res: Response, signedIn: SignedInLocals, options: Omit<PageOptions, 'title'> = {}): Promise<void> {
    const ctx = serviceContext(signedIn);
    const status = STATUS_FILTERS.find((filter) => filter.value === text(req.query.status))?.value ?? 'all';
    const event = ID.test(text(req.query.event)) ? text(req.query.event) : '';
    const after = text(req.query.after);
    const events = await eventsOf(ctx);
    let page: { data: Order[]; pageInfo?: { hasMore: boolean; nextAfter: string } } = { data: [] };
    let listError: string | undefined;
    try {
      page = await deps.orders.listOrders({ status, eventId: event ? BigInt(event) : undefined, page: { limit: PAGE_SIZE, after } }, ctx);
    } catch (error) {
      const refusal = asRefusal(error, FIELDS);
      if (!(refusal instanceof DashboardError)) throw refusal;
      listError = after ? 'That page link no longer works. Start again from the first page.' : refusal.message;
    }
    const query = (extra: Record<string, string>) => {
      const params = new URLSearchParams({ ...(status !== 'all' ? { status } : {}), ...(event ? { event } : {}), ...extra });
      const search = params.toString();
      return `/orders${search ? `?${search}` : ''}`;
    };
    const titles = new Map(events.map((candidate) => [candidate.id, candidate.title]));
    // Ticket emails given up (an address that cannot be mailed, retries spent); the list still shows without them.
    const failedMails = await deps.tickets.listFailedMails({ limit: 20 }, ctx).then((answer) => answer.data, () => []);
    render(req, res, 'orders', {
      title: 'Orders',
      orders: page.data.map((order) => ({ ...order, customerName: customerName(order.customer), eventTitle: titles.get(String(order.eventId)) })),
      events,
      statusFilters: STATUS_FILTERS,
      filter: { status, event },
      nextHref: page.pageInfo?.hasMore ? query({ after: page.pageInfo.nextAfter }) : undefined,
      firstHref: after ? query({}) : undefined,
      failedMails,
      q: '',
      ...(listError ? { status: 400, error: listError } : {}),
      ...options,
    });
  }

  /**
   * An order id opens the order; a ticket number or a ticket's code opens
   * its ticket's order at the ticket (D330, D369). Reading a code checks
   * nobody in: that is the door's call alone.
   */
  async function search(ctx: RequestContext, q: string): Promise<string> {
    if (isUuid(q)) {
      await deps.orders.getOrder({ id: q.toLowerCase() }, ctx).catch((error: unknown) => {
        if (error instanceof ApiError && error.code === 'resource_missing') throw new DashboardError(404, `No order of your organisation has the id ${q}.`, 'q');
        throw error;
      });
      return `/orders/${q.toLowerCase()}`;
    }
    const id = q.replace(/^#/, '');
    const byNumber = ID.test(id);
    const ticket = byNumber ? await ticketByNumber(ctx, id) : await ticketByCode(ctx, q);
    const name = byNumber ? `Ticket ${id}` : `The ticket with code ${barcodeTail(q)}`;
    if (!ticket.orderId) throw new DashboardError(404, `${name} is a complimentary ticket: it belongs to no order.`, 'q');
    return `/orders/${ticket.orderId}#ticket-${ticket.id}`;
  }

  function ticketByNumber(ctx: RequestContext, id: string): Promise<Ticket> {
    return deps.tickets.getTicket({ id: BigInt(id) }, ctx).catch((error: unknown) => {
      if (error instanceof ApiError && error.code === 'resource_missing') throw new DashboardError(404, `No ticket of your organisation has the number ${id}.`, 'q');
      throw error;
    });
  }

  function ticketByCode(ctx: RequestContext, code: string): Promise<Ticket> {
    if (code.length > MAX_TICKET_CODE_LENGTH) throw new DashboardError(400, `Search finds an order by its id, or a ticket by its number or its code (at most ${MAX_TICKET_CODE_LENGTH} characters).`, 'q');
    return deps.tickets.findTicketByCode({ code }, ctx).catch((error: unknown) => {
      if (error instanceof ApiError && error.code === 'resource_missing') {
        throw new DashboardError(404, 'No order id, ticket number or ticket code of your organisation matches this. An order id is a uuid such as 3f2b1c9e-…; a ticket code is read from the ticket whole.', 'q');
      }
      throw error;
    });
  }

  router.get('/orders', async (req, res) => {
    const signedIn = requireMember(res, 'orders.view');
    const q = text(req.query.q);
    if (!q) return listPage(req, res, signedIn);
    try {
      return res.redirect(303, await search(serviceContext(signedIn), q));
    } catch (error) {
      if (!(error instanceof DashboardError)) throw error;
      return listPage(req, res, signedIn, { status: error.status, error: error.message, errorField: error.field, q: q.slice(0, 200) });
    }
  });

  async function orderPage(req: Request, res: Response, signedIn: SignedInLocals, order: Order, options: Omit<PageOptions, 'title'> = {}): Promise<void> {
    const event = await deps.inventory.getEvent({ idOrSlug: String(order.eventId) }, serviceContext(signedIn)).catch(() => undefined);
    // The page still shows the order when the emails cannot be read.
    const mails = await deps.tickets.listOrderMails({ orderId: order.id }, serviceContext(signedIn)).then((answer) => answer.data, () => undefined);
    const canChange = can(signedIn.member.role, 'orders.change') && signedIn.mode === 'live';
    render(req, res, 'order', {
      title: `Order ${order.id.slice(0, 8)}`,
      order,
      eventTitle: event?.title,
      customerName: customerName(order.customer),
      tickets: order.tickets.map((ticket) => ({ ...ticket, attendeeName: customerName(ticket.attendee), barcodeTail: barcodeTail(ticket.barcode) })),
      refundable: order.tickets.filter((ticket) => ticket.status === 'valid'),
      mails,
      canChange,
      form: {},
      ...options,
    });
  }

  router.get('/orders/:id', async (req, res) => {
    const signedIn = requireMember(res, 'orders.view');
    await orderPage(req, res, signedIn, await orderOf(serviceContext(signedIn), String(req.params.id)));
  });

  /**
   * The refund a form asks for, checked against the order; refusals name the
   * field. `confirming`: also that the tickets are valid and the amount is
   * left, which the orders service checks again on the POST (where a repeat
   * of a refund already made must not be refused for it).
   */
  function refundChoice(order: Order, form: Form, confirming: boolean): RefundChoice {
    const scope = text(form.scope) === 'all' ? 'all' : 'chosen';
    const ids = [...new Set(list(form.tickets))];
    let tickets: Ticket[];
    if (scope === 'all' && ids.length === 0) {
      tickets = order.tickets.filter((ticket) => ticket.status === 'valid');
      if (tickets.length === 0) throw new DashboardError(409, 'This order has no valid tickets left to refund.', 'tickets');
    } else {
      if (ids.length === 0) throw new DashboardError(400, 'Tick the tickets to refund, or refund the whole order.', 'tickets');
      tickets = ids.map((id) => {
        const ticket = ID.test(id) ? order.tickets.find((candidate) => candidate.id === BigInt(id)) : undefined;
        if (!ticket) throw new DashboardError(400, `Ticket ${id.slice(0, 20)} is not a ticket of this order.`, 'tickets');
        if (confirming && ticket.status !== 'valid') throw new DashboardError(409, `Ticket ${id} is ${ticket.status.replace('_', ' ')}: only valid tickets can be refunded.`, 'tickets');
        return ticket;
      });
    }
    const amount = text(form.amount).replace(/^\$/, '');
    if (amount && !AMOUNT.test(amount)) throw new DashboardError(400, 'The amount is money like 25 or 25.50, or empty for the tickets’ share of what was paid.', 'amount');
    if (confirming && amount && parseCents(amount) > parseCents(order.total) - parseCents(order.refundedAmount)) {
      throw new DashboardError(400, `At most ${formatCents(parseCents(order.total) - parseCents(order.refundedAmount))} of this order is left to refund.`, 'amount');
    }
    const reason = text(form.reason);
    if (reason.length > MAX_REASON) throw new DashboardError(400, `The reason is at most ${MAX_REASON} characters.`, 'reason');
    return { scope, tickets, amount: amount || undefined, reason: reason || undefined, restock: text(form.restock) !== 'no' };
  }

  const refundView = (choice: RefundChoice) => ({
    ...choice,
    tickets: choice.tickets.map((ticket) => ({ ...ticket, attendeeName: customerName(ticket.attendee), barcodeTail: barcodeTail(ticket.barcode) })),
    ticketIds: choice.tickets.map((ticket) => String(ticket.id)),
    priceSum: formatCents(choice.tickets.reduce((sum, ticket) => sum + parseCents(ticket.price || '0.00'), 0)),
  });

  // The confirmation page: a new refund id each time it is opened, sent back with the form (D332).
  router.get('/orders/:id/refund', async (req, res) => {
    const signedIn = requireMember(res, 'orders.change');
    const order = await orderOf(serviceContext(signedIn), String(req.params.id));
    let choice: RefundChoice;
    try {
      requireLive(signedIn);
      choice = refundChoice(order, req.query as Form, true);
    } catch (error) {
      if (!(error instanceof DashboardError)) throw error;
      return orderPage(req, res, signedIn, order, { status: error.status, error: error.message, errorField: error.field, form: req.query });
    }
    render(req, res, 'confirm-refund', { title: 'Confirm refund', order, refund: refundView(choice), refundId: randomUUID() });
  });

  router.post('/orders/:id/refund', async (req, res) => {
    const signedIn = requireMember(res, 'orders.change');
    const ctx = serviceContext(signedIn);
    const before = await orderOf(ctx, String(req.params.id));
    const form = req.body as Form;
    const refundId = text(form.refund_id).toLowerCase();
    let after: Order;
    let choice: RefundChoice;
    try {
      requireLive(signedIn);
      if (!isUuid(refundId)) throw new DashboardError(400, 'This refund was not confirmed. Choose the tickets again and confirm the refund.');
      // The tickets the confirmation page showed, by id, whichever way they were chosen.
      choice = refundChoice(before, { ...form, scope: 'chosen' }, false);
      after = await deps.orders
        .refundOrder({ id: before.id, refundId, ticketIds: choice.tickets.map((ticket) => ticket.id), amount: choice.amount, reason: choice.reason, restock: choice.restock }, ctx)
        .catch(refused);
    } catch (error) {
      return renderRefusal(req, res, error, 'confirm-refund', {
        title: 'Confirm refund',
        order: before,
        refund: refundView({ scope: text(form.scope) === 'all' ? 'all' : 'chosen', tickets: before.tickets.filter((ticket) => list(form.tickets).includes(String(ticket.id))), amount: text(form.amount) || undefined, reason: text(form.reason) || undefined, restock: text(form.restock) !== 'no' }),
        // A refused refund recorded nothing: the same id may be sent again once the cause is fixed.
        refundId: isUuid(refundId) ? refundId : randomUUID(),
      });
    }
    // Every ticket already refunded before a refund that succeeded: this form was sent before, and nothing more happened.
    const repeat = choice.tickets.every((ticket) => ticket.status === 'refunded');
    if (repeat) return res.redirect(303, `/orders/${before.id}?done=refund_repeated`);
    await deps.audit.record(signedIn.actor, 'order.refunded', `order ${before.id}`, {
      refund_id: refundId,
      ticket_ids: choice.tickets.map((ticket) => Number(ticket.id)),
      amount: formatCents(parseCents(after.refundedAmount) - parseCents(before.refundedAmount)),
      reason: choice.reason ?? null,
      restock: choice.restock,
    });
    res.redirect(303, `/orders/${before.id}?done=order_refunded`);
  });

  async function ticketPage(req: Request, res: Response, signedIn: SignedInLocals, action: 'transfer' | 'void', options: Omit<PageOptions, 'title'> = {}): Promise<void> {
    const order = await orderOf(serviceContext(signedIn), String(req.params.id));
    const ticket = ticketOf(order, String(req.params.ticketId));
    const blocked = ticket.status === 'valid' ? undefined : `Ticket ${ticket.id} is ${ticket.status.replace('_', ' ')}: only a valid ticket can be ${action === 'void' ? 'voided' : 'transferred'}.`;
    render(req, res, `confirm-${action}`, {
      title: action === 'void' ? `Void ticket ${ticket.id}` : `Transfer ticket ${ticket.id}`,
      order,
      ticket: { ...ticket, attendeeName: customerName(ticket.attendee), barcodeTail: barcodeTail(ticket.barcode) },
      form: {},
      ...(blocked && !options.error ? { status: 409, error: blocked, blocked: true } : {}),
      ...options,
    });
  }

  for (const action of ['transfer', 'void'] as const) {
    router.get(`/orders/:id/tickets/:ticketId/${action}`, async (req, res) => {
      const signedIn = requireMember(res, 'orders.change');
      try {
        requireLive(signedIn);
      } catch (error) {
        return ticketPage(req, res, signedIn, action, { status: 409, error: (error as Error).message, blocked: true });
      }
      await ticketPage(req, res, signedIn, action);
    });
  }

  router.post('/orders/:id/tickets/:ticketId/transfer', async (req, res) => {
    const signedIn = requireMember(res, 'orders.change');
    const ctx = serviceContext(signedIn);
    const order = await orderOf(ctx, String(req.params.id));
    const ticket = ticketOf(order, String(req.params.ticketId));
    const form = req.body as Form;
    const to = { email: text(form.email), firstName: text(form.first_name) || undefined, lastName: text(form.last_name) || undefined };
    try {
      requireLive(signedIn);
      if (!to.email) throw new DashboardError(400, 'Enter the new attendee’s email: they receive the ticket.', 'email');
      await deps.tickets.transferTicket({ id: ticket.id, attendee: to }, ctx).catch(refused);
    } catch (error) {
      if (!(error instanceof DashboardError)) throw error;
      return ticketPage(req, res, signedIn, 'transfer', { status: error.status, error: error.message, errorField: error.field, form: { email: to.email, first_name: to.firstName, last_name: to.lastName } });
    }
    await deps.audit.record(signedIn.actor, 'ticket.transferred', `ticket ${ticket.id}`, { order_id: order.id, from: ticket.attendee?.email ?? null, to: to.email });
    res.redirect(303, `/orders/${order.id}?done=ticket_transferred`);
  });

  router.post('/orders/:id/tickets/:ticketId/void', async (req, res) => {
    const signedIn = requireMember(res, 'orders.change');
    const ctx = serviceContext(signedIn);
    const order = await orderOf(ctx, String(req.params.id));
    const ticket = ticketOf(order, String(req.params.ticketId));
    const reason = text((req.body as Form).reason);
    try {
      requireLive(signedIn);
      if (!reason) throw new DashboardError(400, 'Say why the ticket is voided; it is kept with the ticket.', 'reason');
      if (reason.length > MAX_REASON) throw new DashboardError(400, `The reason is at most ${MAX_REASON} characters.`, 'reason');
      await deps.tickets.voidTicket({ id: ticket.id, reason }, ctx).catch(refused);
    } catch (error) {
      if (!(error instanceof DashboardError)) throw error;
      return ticketPage(req, res, signedIn, 'void', { status: error.status, error: error.message, errorField: error.field, form: { reason } });
    }
    await deps.audit.record(signedIn.actor, 'ticket.voided', `ticket ${ticket.id}`, { order_id: order.id, reason });
    res.redirect(303, `/orders/${order.id}?done=ticket_voided`);
  });

  router.post('/orders/:id/resend-email', async (req, res) => {
    const signedIn = requireMember(res, 'orders.change');
    const ctx = serviceContext(signedIn);
    const order = await orderOf(ctx, String(req.params.id));
    let mail;
    try {
      requireLive(signedIn);
      mail = await deps.tickets.resendOrderMail({ orderId: order.id, requestedBy: signedIn.member.email }, ctx).catch(refused);
    } catch (error) {
      if (!(error instanceof DashboardError)) throw error;
      return orderPage(req, res, signedIn, order, { status: error.status, error: error.message });
    }
    await deps.audit.record(signedIn.actor, 'order.email_resent', `order ${order.id}`, { to: mail.recipient, email_id: String(mail.id) });
    res.redirect(303, `/orders/${order.id}?done=email_resent#emails-heading`);
  });

  return router;
}
