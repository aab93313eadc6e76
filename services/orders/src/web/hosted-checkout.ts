/**
 * The hosted checkout: where a session's `checkout_url` leads. Outside the
 * Partner API: no API key; the unguessable session id in the address is
 * the customer's capability. Server-rendered HTML forms, no scripts.
 */
import { randomUUID } from 'node:crypto';
import express, { type NextFunction, type Request, type Response } from 'express';
import { ApiError, operatorContext, pageSecurityHeaders, type Logger } from '@partner-api/shared';
import type { CheckoutPayments, PaymentForm } from '../domain/checkout-payments';
import type { CheckoutSessions } from '../domain/checkout-sessions';
import { type InventoryClient } from '../domain/fulfilment';
import type { PaymentMethodInput } from '../domain/payment-provider';
import type { SessionRow } from '../storage/checkout-repository';
import { channelCheckoutRouter, type ChannelCheckoutDeps } from './channel-checkout';
import { allowFramingBy } from './framing';
import { checkoutPage, completedPage, messagePage, processingPage, type EventSummary, type FormState } from './pages';
import { waitlistRoutes, type JoinLimits } from './waitlist-join';

type Form = Record<string, string | undefined>;

/**
 * A card expiry as people type it (D401): `MM/YY`, `MMYY`, `MM/YYYY` or
 * `MMYYYY`, spaces ignored, a one-digit month allowed before a slash.
 */
export function expiryFrom(typed: string | undefined): { month: number; year: number } {
  const compact = (typed ?? '').replace(/\s+/g, '');
  const match = /^(\d{1,2})\/(\d{2}|\d{4})$/.exec(compact) ?? /^(\d{2})(\d{2}|\d{4})$/.exec(compact);
  const month = Number(match?.[1]);
  if (!match || month < 1 || month > 12) throw new ApiError('parameter_invalid', 'Enter the card expiry as MM/YY, for example 08/29.', 'card_expiry');
  const year = Number(match[2]);
  return { month, year: year < 100 ? 2000 + year : year };
}

/** Card fields as typed; the processor judges them. */
function cardFrom(form: Form): PaymentMethodInput | undefined {
  if (!form.card_number?.trim()) return undefined;
  const expiry = expiryFrom(form.card_expiry);
  return {
    kind: 'card',
    number: form.card_number,
    expMonth: expiry.month,
    expYear: expiry.year,
    cvc: (form.card_cvc ?? '').trim(),
    name: (form.card_name ?? '').trim(),
  };
}

/** An embedded checkout's session pays inside the partner's frame: its site may frame these pages too. */
function framedFor(res: Response, session: SessionRow): void {
  if (session.sales_channel === 'embed' && session.channel_origin) allowFramingBy(res, session.channel_origin);
}

export interface HostedCheckoutOptions {
  /** The proxies whose X-Forwarded-For names the caller (the join limit counts per address); empty trusts none. */
  trustedProxies: readonly string[];
  joinLimits: JoinLimits;
  /** The buyers' ticket pages (ticket-pages.ts), and the link to an order's page for the confirmation. */
  ticketPages?: { router: express.Router; linkFor: (orderId: string) => string };
  /** The waiting room's routes (waiting-room-routes.ts), in front of the channel checkout. */
  waitingRoom?: express.Router;
}

export function hostedCheckoutApp(
  payments: CheckoutPayments,
  sessions: CheckoutSessions,
  inventory: InventoryClient,
  channels: Omit<ChannelCheckoutDeps, 'inventory'>,
  options: HostedCheckoutOptions,
  logger: Logger,
): express.Express {
  const app = express();
  app.set('trust proxy', options.trustedProxies);
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(pageSecurityHeaders());
  // A channel page sends one quantity per ticket type.
  app.use(express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 100 }));
  // The waiting room stands in front of the sale pages it queues.
  if (options.waitingRoom) app.use(options.waitingRoom);
  app.use(channelCheckoutRouter({ ...channels, inventory }));

  async function eventOf(session: SessionRow, requestId: string): Promise<EventSummary> {
    const event = await inventory.getEvent({ idOrSlug: session.event_id }, operatorContext(Number(session.organisation_id), requestId));
    return { title: event.title, startsAt: event.startsAt, timezone: event.timezone, venue: event.venue?.name };
  }

  app.get('/checkout/:id', async (req, res) => {
    const requestId = randomUUID();
    const session = await payments.session(String(req.params.id));
    framedFor(res, session);
    if (session.status !== 'completed' && session.paid_at) return void res.status(202).type('html').send(processingPage(session));
    const event = await eventOf(session, requestId);
    if (session.status === 'completed') return void res.type('html').send(completedPage(session, event, options.ticketPages?.linkFor(session.id)));
    res.type('html').send(checkoutPage(session, event, { lapsed: payments.isLapsed(session) }));
  });

  app.post('/checkout/:id/pay', async (req, res) => {
    const requestId = randomUUID();
    const id = String(req.params.id);
    const form = (req.body ?? {}) as Form;
    const state: FormState = { email: form.email, firstName: form.first_name, lastName: form.last_name };
    // What was typed stays on a refused form; a declined card's number and expiry do not (another card is asked for).
    const typedCard: FormState = { cardName: form.card_name, cardNumber: form.card_number, cardExpiry: form.card_expiry };
    let input: PaymentForm;
    let result;
    try {
      input = { method: cardFrom(form), customer: { email: form.email, firstName: form.first_name, lastName: form.last_name } };
      result = await payments.pay(id, input, requestId);
    } catch (error) {
      if (!(error instanceof ApiError) || !['parameter_missing', 'parameter_invalid'].includes(error.code)) throw error;
      const session = await payments.session(id);
      framedFor(res, session);
      return void res.status(400).type('html').send(checkoutPage(session, await eventOf(session, requestId), { ...state, ...typedCard, error: error.message, errorField: error.param ?? undefined, lapsed: payments.isLapsed(session) }));
    }
    const session = await payments.session(id);
    framedFor(res, session);
    switch (result.kind) {
      case 'completed':
        return void res.redirect(303, `/checkout/${session.id}`);
      case 'processing':
        return void res.status(202).type('html').send(processingPage(session));
      case 'unavailable':
        return void res.status(409).type('html').send(messagePage('Tickets no longer available', result.message));
      case 'declined':
        // The hold stays (unless it had lapsed): the customer can try another card.
        return void res.status(402).type('html').send(checkoutPage(session, await eventOf(session, requestId), { ...state, cardName: form.card_name, error: result.message, declined: true, lapsed: payments.isLapsed(session) }));
    }
  });

  app.use(waitlistRoutes(inventory, sessions, options.joinLimits, logger));
  if (options.ticketPages) app.use(options.ticketPages.router);

  app.use((_req, res) => void res.status(404).type('html').send(messagePage('Not found', 'There is no such page.')));
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    if (error instanceof ApiError && error.code === 'resource_missing' && req.path.startsWith('/waitlist/')) {
      return void res.status(404).type('html').send(messagePage('Event not found', 'This event has no waiting list here. Check the link you followed.'));
    }
    if (error instanceof ApiError && error.code === 'resource_missing') {
      return void res.status(404).type('html').send(messagePage('Checkout not found', 'This checkout link is not valid. Ask the seller for a new one.'));
    }
    // A path the router could not decode (a bad percent-escape) names no page.
    if (error instanceof URIError) return void res.status(404).type('html').send(messagePage('Not found', 'There is no such page.'));
    if ((error as { type?: string }).type === 'entity.too.large' || (error as { type?: string }).type === 'parameters.too.many') {
      return void res.status(413).type('html').send(messagePage('Request too large', 'The form sent too much data.'));
    }
    logger.error({ err: error }, 'hosted checkout failed');
    res.status(500).type('html').send(messagePage('Something went wrong', 'We could not process this page. Please try again in a moment.'));
  });
  return app;
}
