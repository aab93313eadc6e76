/**
 * The signed links of the ticket pages on the hosted pages (D420). A buyer's
 * page is addressed by the order id and an HMAC of it; a ticket that moved
 * to another attendee is shown on that attendee's own page, addressed by the
 * organisation and ticket ids and an HMAC over them and the holder's email,
 * so the link stops showing the ticket once it moves on again. The token is the secret's work
 * alone: nothing is stored, every replica (and the mailer) with the same
 * TICKET_PAGE_SECRET makes and checks the same links.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';

export const DEVELOPMENT_TICKET_PAGE_SECRET = 'local-development-ticket-page-secret';

/**
 * The setting every process that makes or checks these links reads. Pair it
 * with `refuseDevelopmentSecrets({ TICKET_PAGE_SECRET: DEVELOPMENT_TICKET_PAGE_SECRET })`.
 */
export const ticketPageEnv = z.object({
  TICKET_PAGE_SECRET: z.string().min(32).default(DEVELOPMENT_TICKET_PAGE_SECRET),
});

/** Where a buyer's ticket page lives under the hosted pages' base URL. */
export const ORDER_TICKET_PAGE_PATH = '/my-tickets/order';
/** Where an attendee's page for one ticket lives. */
export const HOLDER_TICKET_PAGE_PATH = '/my-tickets/ticket';

// 128 bits: unguessable, and short enough for a link in an email.
const TOKEN_BYTES = 16;

function token(secret: string, purpose: string, ...parts: string[]): string {
  return createHmac('sha256', secret).update([`ticket_page_${purpose}`, ...parts].join('\n')).digest().subarray(0, TOKEN_BYTES).toString('base64url');
}

function sameToken(wanted: string, given: string): boolean {
  const a = Buffer.from(wanted);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

const withoutTrailingSlash = (baseUrl: string) => baseUrl.replace(/\/+$/, '');

/** The token of an order's page. */
export function ticketPageToken(input: { orderId: string; secret: string }): string {
  return token(input.secret, 'order', input.orderId);
}

/** The link to an order's ticket page: `<base>/my-tickets/order/<order id>/<token>`. */
export function ticketPageUrl(input: { baseUrl: string; orderId: string; secret: string }): string {
  return `${withoutTrailingSlash(input.baseUrl)}${ORDER_TICKET_PAGE_PATH}/${encodeURIComponent(input.orderId)}/${ticketPageToken(input)}`;
}

/** Whether `token` is the one for this order, compared in constant time. */
export function verifyTicketPageToken(input: { orderId: string; token: string; secret: string }): boolean {
  return sameToken(ticketPageToken(input), input.token);
}

// Emails are compared as the tickets service compares attendees: case aside.
const holderKey = (email: string) => email.trim().toLowerCase();

/** The token of one ticket's page for the attendee holding it. */
export function ticketHolderPageToken(input: { organisationId: string; ticketId: string; attendeeEmail: string; secret: string }): string {
  return token(input.secret, 'holder', input.organisationId, input.ticketId, holderKey(input.attendeeEmail));
}

/**
 * The link to one ticket's page for its current attendee (a transfer's new
 * holder): `<base>/my-tickets/ticket/<organisation id>/<ticket id>/<token>`
 * (the organisation scopes the ticket's lookup; comp tickets have no order).
 */
export function ticketHolderPageUrl(input: { baseUrl: string; organisationId: string; ticketId: string; attendeeEmail: string; secret: string }): string {
  const ids = `${encodeURIComponent(input.organisationId)}/${encodeURIComponent(input.ticketId)}`;
  return `${withoutTrailingSlash(input.baseUrl)}${HOLDER_TICKET_PAGE_PATH}/${ids}/${ticketHolderPageToken(input)}`;
}

/** Whether `token` was made for this ticket held by this attendee, compared in constant time. */
export function verifyTicketHolderToken(input: { organisationId: string; ticketId: string; attendeeEmail: string; token: string; secret: string }): boolean {
  return sameToken(ticketHolderPageToken(input), input.token);
}
