/**
 * The public waiting-list pages beside the hosted checkout, under the
 * organisation whose event it is (every internal call is made for one):
 *
 * - `GET /waitlist/<organisation id>/<event id>` shows the join form and
 *   `POST` joins. Inventory decides who may join (D251); this page only
 *   renders its answer. Joins are limited per caller address across
 *   every orders process (D256, D371), on top of one live entry per email
 *   and event.
 * - `GET /waitlist/<organisation id>/offers/<offer id>`, the link in an
 *   offer's email, opens the offer's checkout session on its hold and
 *   sends the customer to it: from there it is an ordinary session.
 */
import { randomUUID } from 'node:crypto';
import express, { type Request, type Router } from 'express';
import { rateLimit, type Store } from 'express-rate-limit';
import { ApiError, type Logger, operatorContext } from '@partner-api/shared';
import type { CheckoutSessions } from '../domain/checkout-sessions';
import { type InventoryClient } from '../domain/fulfilment';
import { messagePage } from './pages';
import { joinedPage, joinPage } from './waitlist-pages';

export interface JoinLimits {
  /** Joins one caller address may send per window. */
  perWindow: number;
  windowSeconds: number;
  /** Where the counts are kept: shared by every orders process (AddressLimitCounts). */
  counts: Store;
}

type Form = Record<string, string | undefined>;

const ID = /^[1-9][0-9]{0,14}$/;
/** Errors about what the customer typed, or the event no longer selling: the form again, saying why. */
const FORM_ERRORS = new Set(['event_not_on_sale', 'parameter_missing', 'parameter_invalid', 'exceeds_max_per_order', 'ticket_type_unavailable', 'resource_missing']);

/** The organisation and event named in the address; anything else is a page that does not exist. */
function ids(req: Request): { organisationId: string; eventId: string } {
  const organisationId = String(req.params.organisationId);
  const eventId = String(req.params.eventId ?? '1');
  if (!ID.test(organisationId) || !ID.test(eventId)) throw new ApiError('resource_missing', 'No such event.', 'event_id');
  return { organisationId, eventId };
}

export function waitlistRoutes(inventory: InventoryClient, sessions: CheckoutSessions, limits: JoinLimits, logger: Logger): Router {
  const router = express.Router();
  const limiter = rateLimit({
    windowMs: limits.windowSeconds * 1000,
    limit: limits.perWindow,
    store: limits.counts,
    // A Redis that cannot be reached lets joins through uncounted: inventory still allows one live entry per email and event.
    passOnStoreError: true,
    logger: {
      error: (error, message) => logger.warn({ err: error }, message ?? 'waiting-list join counts failed'),
      warn: (error, message) => logger.warn({ err: error }, message ?? 'waiting-list join limiter warning'),
    },
    standardHeaders: 'draft-6',
    legacyHeaders: false,
    handler: (_req, res) => void res.status(429).type('html').send(messagePage('Too many requests', 'You have tried to join too often. Please wait a few minutes and try again.')),
  });

  const form = ({ organisationId, eventId }: { organisationId: string; eventId: string }) =>
    inventory.getWaitlistForm({ eventId: BigInt(eventId) }, operatorContext(Number(organisationId), randomUUID()));

  router.get('/waitlist/:organisationId/offers/:offerId', async (req, res) => {
    const { organisationId } = ids(req);
    const offerId = String(req.params.offerId).toLowerCase();
    if (!(await sessions.openOffer(organisationId, offerId, randomUUID()))) {
      return void res.status(404).type('html').send(messagePage('Offer not available', 'This offer has ended or was passed to the next person on the list. Join the waiting list again to be offered tickets later.'));
    }
    res.redirect(303, `/checkout/${offerId}`);
  });

  router.get('/waitlist/:organisationId/:eventId', async (req, res) => {
    res.type('html').send(joinPage(await form(ids(req))));
  });

  router.post('/waitlist/:organisationId/:eventId', limiter, async (req, res) => {
    const where = ids(req);
    const page = await form(where);
    const body = (req.body ?? {}) as Form;
    const state = { ticketTypeId: body.ticket_type_id, quantity: body.quantity, email: body.email };
    try {
      if (!ID.test(body.ticket_type_id ?? '')) throw new ApiError('parameter_invalid', 'Choose a ticket type.', 'ticket_type_id');
      const quantity = /^\s*[0-9]{1,4}\s*$/.test(body.quantity ?? '') ? Number(body.quantity) : NaN;
      if (!Number.isInteger(quantity)) throw new ApiError('parameter_invalid', 'Enter how many tickets you want as a whole number.', 'quantity');
      const entry = await inventory.joinWaitlist(
        { eventId: BigInt(where.eventId), ticketTypeId: BigInt(body.ticket_type_id!), email: body.email ?? '', quantity },
        operatorContext(Number(where.organisationId), randomUUID()),
      );
      res.type('html').send(joinedPage(page, entry));
    } catch (error) {
      if (!(error instanceof ApiError) || !FORM_ERRORS.has(error.code)) throw error;
      res.status(400).type('html').send(joinPage(page, { ...state, error: error.message, errorField: error.param ?? undefined }));
    }
  });
  return router;
}
