/**
 * Server-rendered pages with Eta: templates in the package's views/
 * folder, every `<%= %>` escaped, one layout with the navigation a role
 * may see. No scripts: forms post and the server redirects.
 */
import path from 'node:path';
import { Eta } from 'eta';
import type { Request, Response } from 'express';
import { DashboardError } from '../domain/dashboard-error';
import { zonedTime } from '../domain/organisation-zones';
import { can, ROLE_LABELS, type Permission } from '../domain/roles';
import { signedInOf } from './signed-in';

// From src/web (tests) and dist/web (built) alike: the package's views folder.
const VIEWS_DIR = path.join(__dirname, '..', '..', 'views');

const NAV: Array<{ href: string; label: string; permission: Permission }> = [
  { href: '/keys', label: 'API keys', permission: 'keys' },
  { href: '/webhooks', label: 'Webhooks', permission: 'webhooks' },
  { href: '/orders', label: 'Orders', permission: 'orders.view' },
  { href: '/waiting-room', label: 'Waiting room', permission: 'orders.view' },
  { href: '/door', label: 'Door', permission: 'door' },
  { href: '/members', label: 'Members', permission: 'members' },
  { href: '/audit', label: 'Audit log', permission: 'audit' },
];

type Query = Record<string, unknown>;
const EVENT_ID = /^evt_[A-Za-z0-9]{1,64}$/;
const COUNT = /^\d{1,9}$/;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
/** A query value that matches, or undefined: a crafted link cannot put words of its own into a message. */
const matching = (value: unknown, pattern: RegExp): string | undefined => (typeof value === 'string' && pattern.test(value) ? value : undefined);

/**
 * Outcomes of a form that redirects, shown once on the page it lands on
 * (`?done=`, with the outcome's figures beside it when it has any).
 */
type TimeFormat = (value: string) => string;
const DONE_MESSAGES: Record<string, string | ((query: Query, time: TimeFormat) => string | undefined)> = {
  allowlist_saved: 'The allowlist is saved; it applies to the key’s next request.',
  rate_limit_saved: 'The rate limit is saved; it applies to the key’s next request.',
  key_revoked: 'The key is revoked.',
  member_invited: 'Invitation sent.',
  role_changed: 'Role changed. The member signs in again to use it.',
  member_removed: 'Member removed; their sessions have ended.',
  signed_out: 'You are signed out.',
  order_refunded: 'Refunded. The money goes back to the customer’s card and the tickets no longer check in.',
  refund_repeated: 'This refund was already made: the form was sent again, and nothing more was refunded.',
  ticket_transferred: 'Ticket transferred. It has a new code; the old one no longer checks in.',
  ticket_voided: 'Ticket voided. It no longer checks in and its place is back on sale.',
  email_resent: 'The order’s tickets are emailed to the buyer again; the email is listed below.',
  waiting_room_saved: 'The waiting room is saved; the event’s sale pages follow it at once.',
  link_sent: 'If that address belongs to a member, a sign-in link is on its way. It works once, for 15 minutes.',
  endpoint_enabled: 'The endpoint is enabled and its failure count reset. Recover what it missed below.',
  delivery_resent: (query) => {
    const [event, attempt] = [matching(query.event, EVENT_ID), matching(query.attempt, COUNT)];
    return event && attempt ? `Event ${event} is queued again as attempt ${attempt}.` : undefined;
  },
  endpoint_recovered: (query, time) => {
    const [queued, since] = [matching(query.queued, COUNT), matching(query.since, ISO_TIME)];
    return queued && since ? `${queued} failed or missed deliveries since ${time(since)} are queued again.` : undefined;
  },
};

export function doneMessage(query: Query, time: TimeFormat = (value) => value): string | undefined {
  const message = typeof query.done === 'string' ? DONE_MESSAGES[query.done] : undefined;
  return typeof message === 'function' ? message(query, time) : message;
}

const eta = new Eta({ views: VIEWS_DIR, cache: true, autoEscape: true });


/** The spec's `payment_method` values as an organiser reads them. */
const PAYMENT_METHODS: Record<string, string> = { stripe: 'Card (Stripe)', paypal: 'PayPal', free: 'Free order', comp: 'Complimentary', other: 'Other' };
export const paymentMethodLabel = (value: string): string => PAYMENT_METHODS[value] ?? value;

export interface PageOptions {
  title: string;
  status?: number;
  error?: string;
  errorField?: string;
  [name: string]: unknown;
}

export function render(req: Request, res: Response, view: string, options: PageOptions): void {
  const signedIn = signedInOf(res);
  const member = signedIn?.member;
  const time = (value: Date | string | null | undefined) => zonedTime(value, signedIn?.timeZone ?? 'UTC');
  const nav = member ? NAV.filter((item) => can(member.role, item.permission)).map((item) => ({ ...item, current: req.path.startsWith(item.href) })) : [];
  const html = eta.render(view, {
    ...options,
    member,
    organisation: signedIn?.organisationName,
    roleLabel: member ? ROLE_LABELS[member.role] : undefined,
    mode: signedIn?.mode,
    nav,
    path: req.originalUrl,
    csrf: req.csrfToken?.() ?? '',
    flash: options.flash ?? doneMessage(req.query, time),
    // Times on the organisation's clock, named (D405); an event's own times on its venue's: zonedTime(value, event.timezone).
    time,
    zonedTime,
    paymentMethodLabel,
  });
  res.status(options.status ?? 200).type('html').send(html);
}

/** Shows a refused form again with the refusal's message; anything but a refusal goes on to the error handler. */
export function renderRefusal(req: Request, res: Response, error: unknown, view: string, options: PageOptions): void {
  if (!(error instanceof DashboardError)) throw error;
  render(req, res, view, { ...options, status: error.status, error: error.message, errorField: error.field });
}
