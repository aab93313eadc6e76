/**
 * The checkout of the channels other than the API, outside the Partner API
 * (no key): `/<channel>/<organisation id>/events/<event id or slug>` shows
 * the event's ticket types; its form starts a checkout session of that
 * channel through the same path as an API checkout, and the customer pays
 * on the hosted checkout. `embed` is framed by a partner's site that the
 * operator allowed; `storefront` and `web` are the platform's own pages.
 */
import { randomUUID } from 'node:crypto';
import { create } from '@bufbuild/protobuf';
import express, { type Request, type Response } from 'express';
import { ApiError, gen, operatorContext } from '@partner-api/shared';
import type { ChannelOrigins } from '../domain/channel-origins';
import type { CheckoutSessions, SessionInit } from '../domain/checkout-sessions';
import { type InventoryClient } from '../domain/fulfilment';
import { embeddingOrigin, type ChannelTokens, type SalesChannel } from '../domain/sales-channels';
import { chooserPage, type ChooserState, type TicketChoice, type WaitlistLink } from './channel-pages';
import { allowFramingBy } from './framing';
import { messagePage, type EventSummary } from './pages';

type PageChannel = Exclude<SalesChannel, 'api'>;
type Form = Record<string, string | undefined>;

export interface ChannelCheckoutDeps {
  sessions: CheckoutSessions;
  inventory: InventoryClient;
  origins: ChannelOrigins;
  tokens: ChannelTokens;
  /** The storefront's own site address: its orders' channel_origin. */
  storefrontOrigin: string;
}

/** Most tickets of one type a form may ask for; the ticket type's own maximum is checked by the checkout. */
const MAX_QUANTITY_DIGITS = 3;

/**
 * The lines a form asks for, in the page's order: `quantity_<ticket type id>`
 * fields, blank or 0 meaning none. Throws before anything is held.
 */
export function chosenItems(form: Form): Array<{ ticketTypeId: string; quantity: number }> {
  const items: Array<{ ticketTypeId: string; quantity: number }> = [];
  for (const [name, raw] of Object.entries(form)) {
    const field = /^quantity_([1-9][0-9]{0,18})$/.exec(name);
    if (!field) continue;
    const value = (raw ?? '').trim();
    if (value === '') continue;
    if (!new RegExp(`^[0-9]{1,${MAX_QUANTITY_DIGITS}}$`).test(value)) throw new ApiError('parameter_invalid', 'Enter the number of tickets as a whole number.', `quantity_${field[1]}`);
    if (Number(value) > 0) items.push({ ticketTypeId: field[1]!, quantity: Number(value) });
  }
  if (items.length === 0) throw new ApiError('parameter_missing', 'Choose at least one ticket.', 'items');
  return items;
}

/** The ticket type an error names: `quantity_<id>`, or a line `items[n]…` of what was sent. */
function ticketTypeOfError(param: string | null | undefined, items: Array<{ ticketTypeId: string }>): string | undefined {
  const field = /^quantity_([0-9]+)$/.exec(param ?? '');
  if (field) return field[1];
  const line = /^items\[([0-9]+)\]/.exec(param ?? '');
  return line ? items[Number(line[1])]?.ticketTypeId : undefined;
}

class PageRefused extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    message: string,
  ) {
    super(message);
  }
}

const noSuchEvent = () => new PageRefused(404, 'Not found', 'There is no such event on sale.');

/** The event's waiting-list page on this site; an embedded page opens it in a tab, as it may not be framed. */
const waitlistOf = (channel: PageChannel, page: { organisationId: number; eventId: string }): WaitlistLink => ({
  href: `/waitlist/${page.organisationId}/${page.eventId}`,
  newTab: channel === 'embed',
});

export function channelCheckoutRouter(deps: ChannelCheckoutDeps): express.Router {
  const router = express.Router();

  /**
   * The same form sent again while its first sending is still holding (a
   * double click) waits for that one instead of racing it for the same
   * session: the API path relies on the gateway's idempotency for this.
   */
  const starting = new Map<string, Promise<SessionInit>>();
  function startOnce(sessionId: string, start: () => Promise<SessionInit>): Promise<SessionInit> {
    const running = starting.get(sessionId);
    if (running) return running;
    const started = start().finally(() => starting.delete(sessionId));
    starting.set(sessionId, started);
    return started;
  }

  /** The organisation in the address, and its published event with the ticket types a customer may see. */
  async function eventPage(req: Request, requestId: string) {
    const organisation = String(req.params.organisation);
    if (!/^[1-9][0-9]{0,15}$/.test(organisation)) throw noSuchEvent();
    const ctx = operatorContext(Number(organisation), requestId);
    const event = await deps.inventory.getEvent({ idOrSlug: String(req.params.event) }, ctx).catch((error: unknown) => {
      throw error instanceof ApiError && error.code === 'resource_missing' ? noSuchEvent() : error;
    });
    // Drafts, events in review, cancelled and ended ones are not for sale to the public.
    if (event.status !== 'published') throw noSuchEvent();
    const { data } = await deps.inventory.listTicketTypes({ eventIdOrSlug: event.id.toString() }, ctx);
    const types: TicketChoice[] = data
      .filter((type) => type.status !== 'hidden')
      .map((type) => ({ id: type.id.toString(), name: type.name, description: type.description, price: type.price, status: type.status, maxPerOrder: type.maxPerOrder }));
    const summary: EventSummary = { title: event.title, startsAt: event.startsAt, timezone: event.timezone, venue: event.venue?.name };
    return { ctx, organisationId: Number(organisation), eventId: event.id.toString(), summary, types };
  }

  /** The site a page of this channel is for: for embed, the allowed site framing it; refused otherwise. */
  async function originOf(channel: PageChannel, req: Request, res: Response, organisationId: number): Promise<string | null> {
    if (channel === 'web') return null;
    if (channel === 'storefront') return deps.storefrontOrigin;
    // A page reached from the waiting room has no Referer of its own: the room remembers the site it was framed by.
    const origin = embeddingOrigin(req.headers) ?? (res.locals.embeddingOrigin as string | undefined);
    if (!origin || !(await deps.origins.allows(organisationId, origin))) {
      throw new PageRefused(403, 'Checkout not available here', "This site is not allowed to show this checkout. Buy your tickets on the organiser's own site.");
    }
    return origin;
  }

  for (const channel of ['embed', 'storefront', 'web'] as const) {
    const path = `/${channel}/:organisation/events/:event`;

    router.get(path, async (req, res) => {
      const requestId = randomUUID();
      const page = await eventPage(req, requestId);
      const origin = await originOf(channel, req, res, page.organisationId);
      const token = deps.tokens.issue({ salesChannel: channel, organisationId: page.organisationId, eventId: page.eventId, origin });
      if (channel === 'embed') allowFramingBy(res, origin!);
      res.type('html').send(chooserPage(req.originalUrl.split('?')[0]!, token, page.summary, page.types, {}, waitlistOf(channel, page)));
    });

    router.post(path, async (req, res) => {
      const requestId = randomUUID();
      const form = (req.body ?? {}) as Form;
      const page = await eventPage(req, requestId);
      const action = req.originalUrl.split('?')[0]!;
      const quantities = Object.fromEntries(Object.entries(form).filter(([name]) => name.startsWith('quantity_')).map(([name, value]) => [name.slice('quantity_'.length), value]));
      // The site comes from the token the page was given, never from this request.
      let token: { origin: string | null; expired: boolean };
      try {
        token = deps.tokens.read(form.token, { salesChannel: channel, organisationId: page.organisationId, eventId: page.eventId });
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        throw new PageRefused(400, 'This form is not valid', error.message);
      }
      const origin = token.origin;
      if (channel === 'embed') {
        // An operator may have removed the site since the page was shown.
        if (!origin || !(await deps.origins.allows(page.organisationId, origin))) throw new PageRefused(403, 'Checkout not available here', 'This site is no longer allowed to show this checkout.');
        allowFramingBy(res, origin);
      }
      const again = (status: number, error: ApiError, items: Array<{ ticketTypeId: string }> = []) => {
        // A fresh token: the page shown again is a new form.
        const fresh = deps.tokens.issue({ salesChannel: channel, organisationId: page.organisationId, eventId: page.eventId, origin });
        const state: ChooserState = { quantities, error: error.message, errorTicketType: ticketTypeOfError(error.param, items) };
        res.status(status).type('html').send(chooserPage(action, fresh, page.summary, page.types, state, waitlistOf(channel, page)));
      };
      if (token.expired) return again(400, new ApiError('parameter_invalid', 'This page had been open too long. Check your choice and continue again.', 'token'));

      let items: Array<{ ticketTypeId: string; quantity: number }>;
      try {
        items = chosenItems(form);
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        return again(400, error);
      }
      let session;
      try {
        const sessionId = deps.tokens.sessionId(form.token!, items.map((item) => `${item.ticketTypeId}x${item.quantity}`).join(','));
        session = await startOnce(sessionId, () =>
          deps.sessions.create(
            page.ctx,
            create(gen.orders.CreateCheckoutSessionRequestSchema, {
              eventIdOrSlug: page.eventId,
              items: items.map((item) => ({ ticketTypeId: BigInt(item.ticketTypeId), quantity: item.quantity })),
              sessionId,
            }),
            { salesChannel: channel, origin },
          ),
        );
      } catch (error) {
        if (error instanceof ApiError && error.httpStatus < 500) return again(error.httpStatus, error, items);
        throw error;
      }
      res.redirect(303, `/checkout/${session.id}`);
    });
  }

  router.use((error: unknown, _req: Request, res: Response, next: (error: unknown) => void) => {
    // The router could not decode the path's organisation or event (a bad percent-escape): it names no event.
    const refused = error instanceof URIError ? noSuchEvent() : error;
    if (!(refused instanceof PageRefused)) return next(error);
    res.status(refused.status).type('html').send(messagePage(refused.title, refused.message));
  });
  return router;
}
