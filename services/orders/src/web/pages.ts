/**
 * The hosted checkout's HTML: plain server-rendered pages, one stylesheet
 * inline in the head (allowed by its hash-free `style-src 'unsafe-inline'`),
 * no scripts. Every value from a session or a customer is escaped.
 */
import escapeHtml from 'escape-html';
import { formatCents } from '@partner-api/shared';
import type { SessionRow } from '../storage/checkout-repository';

export interface EventSummary {
  title: string;
  startsAt: string;
  /** The event's IANA time zone (the venue's): its start is shown in local time. */
  timezone: string;
  venue?: string;
}

export interface FormState {
  email?: string;
  firstName?: string;
  lastName?: string;
  /** Card fields as typed, written back after a refusal of what was typed (never the security code: D401). */
  cardName?: string;
  cardNumber?: string;
  cardExpiry?: string;
  /** Message shown above the form (a decline, a missing field). */
  error?: string;
  /** The form field the error is about: it is marked invalid, described by the message and focused. */
  errorField?: string;
  /** A decline: the message is focused and suggests another card. */
  declined?: boolean;
}

const STYLE = `
*{box-sizing:border-box}body{font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;color:#1d1d1f}
h1{font-size:1.5rem;margin-bottom:.25rem}.when{color:#555;margin-top:0}
table{width:100%;border-collapse:collapse;margin:1rem 0}td,th{padding:.4rem;border-bottom:1px solid #ddd;text-align:left}
td.num,th.num{text-align:right}.total td{font-weight:600}
form{display:grid;gap:.6rem;margin-top:1rem}label{display:grid;gap:.2rem;font-size:.9rem}
input,select{padding:.5rem;font-size:1rem;border:1px solid #aaa;border-radius:4px}
label>input,label>select{width:100%;min-width:0}input[aria-invalid=true]{border-color:#b02a37;border-width:2px}
button{padding:.7rem;font-size:1rem;background:#0a58ca;color:#fff;border:0;border-radius:4px;cursor:pointer}
.notice{padding:.75rem;border-radius:4px;background:#fff3cd}.error{padding:.75rem;border-radius:4px;background:#f8d7da}
.ok{padding:.75rem;border-radius:4px;background:#d1e7dd}.row{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:.6rem}
`;

export const e = (value: string | null | undefined) => escapeHtml(value ?? '');

/** Every page's content is its main landmark: a screen reader jumps straight to it (D403). */
export function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${e(title)}</title><style>${STYLE}</style></head>
<body><main>${body}</main></body></html>`;
}

const START_FORMAT: Intl.DateTimeFormatOptions = { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric', hour: 'numeric', minute: '2-digit' };
const TIME_FORMAT: Intl.DateTimeFormatOptions = { hour: 'numeric', minute: '2-digit' };

/**
 * Formatters by zone and format. Making one costs about half a millisecond
 * (`toLocaleString` with options makes one per call), which every queued
 * page load paid for the event's start: kept per process, for the few
 * zones and two formats the pages use.
 */
const formatters = new Map<string, Intl.DateTimeFormat>();
const FORMATTER_LIMIT = 1_000;

function formatter(timezone: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = `${options === START_FORMAT ? 'start' : 'time'} ${timezone}`;
  let found = formatters.get(key);
  if (!found) {
    let zone = timezone;
    try {
      new Intl.DateTimeFormat('en-AU', { timeZone: zone });
    } catch {
      zone = 'UTC'; // a zone this runtime does not know
    }
    found = new Intl.DateTimeFormat('en-AU', { ...options, timeZoneName: 'short', timeZone: zone });
    if (formatters.size >= FORMATTER_LIMIT) formatters.clear();
    formatters.set(key, found);
  }
  return found;
}

/** A time on the venue's clock, formatted with the zone's short name; a zone this runtime does not know falls back to UTC, named as such. */
function onVenueClock(at: Date, timezone: string, options: typeof START_FORMAT | typeof TIME_FORMAT): string {
  return formatter(timezone, options).format(at);
}

/** When the event starts, on the venue's clock with the zone's name ("Thursday 31 December 2026 at 8:00 pm AEDT"). */
export function localStart(startsAt: string, timezone: string): string {
  return onVenueClock(new Date(startsAt), timezone, START_FORMAT);
}

/**
 * How long the tickets stay held, as the customer reads it (D400): the
 * minutes left and the time on the venue's clock, named like the event's
 * start above it ("for 15 more minutes, until 2:14 pm AEDT").
 */
export function holdLeft(expiresAt: Date, timezone: string, now: Date = new Date()): string {
  const minutes = Math.max(1, Math.ceil((expiresAt.getTime() - now.getTime()) / 60_000));
  return `for ${minutes} more minute${minutes === 1 ? '' : 's'}, until ${onVenueClock(expiresAt, timezone, TIME_FORMAT)}`;
}

function summary(session: SessionRow, event: EventSummary): string {
  const when = `<time datetime="${e(event.startsAt)}" title="${e(event.timezone)}">${e(localStart(event.startsAt, event.timezone))}</time>`;
  const rows = session.items
    .map((item) => `<tr><td>${e(item.name)}</td><td class="num">${item.quantity}</td><td class="num">$${e(item.unit_price)}</td><td class="num">$${e(item.total)}</td></tr>`)
    .join('');
  const discount = BigInt(session.discount_cents) > 0n ? `<tr><td colspan="3">Discount</td><td class="num">−$${formatCents(BigInt(session.discount_cents))}</td></tr>` : '';
  return `<h1>${e(event.title)}</h1>
<p class="when">${when}${event.venue ? ` · ${e(event.venue)}` : ''}</p>
<table><thead><tr><th>Ticket</th><th class="num">Qty</th><th class="num">Each</th><th class="num">Amount</th></tr></thead>
<tbody>${rows}${discount}<tr class="total"><td colspan="3">Total (AUD, booking fees included)</td><td class="num" data-testid="total">$${formatCents(BigInt(session.total_cents))}</td></tr></tbody></table>`;
}

/** The form's error message: an invalid field names it in aria-describedby. */
const ERROR_ID = 'pay-error';

export function checkoutPage(session: SessionRow, event: EventSummary, state: FormState & { lapsed: boolean }, now: Date = new Date()): string {
  const free = BigInt(session.total_cents) === 0n;
  const value = (field: keyof FormState, prefilled?: string | null) => e((state[field] as string | undefined) ?? prefilled ?? '');
  // The field an error is about is marked, described by the message, and focused (no script: autofocus).
  const invalid = (name: string) => (state.error && state.errorField === name ? ` aria-invalid="true" aria-describedby="${ERROR_ID}" autofocus` : '');
  const notice = state.lapsed
    ? '<p class="notice" role="status">Your hold on these tickets has lapsed. When you pay we will hold them again if they are still available.</p>'
    : `<p class="notice" role="status" data-testid="hold">Your tickets are held ${e(holdLeft(session.expires_at, event.timezone, now))}.</p>`;
  let error = '';
  if (state.error) {
    // A message about no one field (a decline) takes the focus itself, so that it is read out first.
    const focused = state.errorField ? '' : ' tabindex="-1" autofocus';
    const advice = state.declined ? ` Try another card${state.lapsed ? '' : ': your tickets are still held'}.` : '';
    error = `<p class="error" role="alert" id="${ERROR_ID}" data-testid="error"${focused}>${e(state.error)}${e(advice)}</p>`;
  }
  const card = free
    ? ''
    : `<label>Name on card<input name="card_name" autocomplete="cc-name" required value="${value('cardName')}"${invalid('card_name')}></label>
<label>Card number<input name="card_number" inputmode="numeric" autocomplete="cc-number" required value="${value('cardNumber')}"${invalid('card_number')}></label>
<div class="row"><label>Expiry (MM/YY)<input name="card_expiry" autocomplete="cc-exp" placeholder="MM/YY" required value="${value('cardExpiry')}"${invalid('card_expiry')}></label>
<label>Security code<input name="card_cvc" inputmode="numeric" autocomplete="cc-csc" required${invalid('card_cvc')}></label></div>`;
  return layout(
    `Checkout · ${event.title}`,
    `${summary(session, event)}${notice}${error}
<form method="post" action="/checkout/${e(session.id)}/pay">
<label>Email<input type="email" name="email" autocomplete="email" required value="${value('email', session.customer?.email)}"${invalid('email')}></label>
<div class="row"><label>First name<input name="first_name" autocomplete="given-name" value="${value('firstName', session.customer?.first_name)}"${invalid('first_name')}></label>
<label>Last name<input name="last_name" autocomplete="family-name" value="${value('lastName', session.customer?.last_name)}"${invalid('last_name')}></label></div>
${card}<button type="submit">${free ? 'Confirm free order' : `Pay $${formatCents(BigInt(session.total_cents))}`}</button>
</form>`,
  );
}

export function completedPage(session: SessionRow, event: EventSummary, ticketPageUrl?: string): string {
  const tickets = session.items.reduce((sum, item) => sum + item.quantity, 0);
  // The ticket page may not be framed: from an embedded checkout it opens in a tab of its own.
  const target = session.sales_channel === 'embed' ? ' target="_blank" rel="noopener"' : '';
  const link = ticketPageUrl ? `<p><a href="${e(ticketPageUrl)}"${target} data-testid="ticket-page-link">Show your ticket${tickets === 1 ? '' : 's'} and QR code${tickets === 1 ? '' : 's'}</a></p>` : '';
  return layout(
    `Order confirmed · ${event.title}`,
    `${summary(session, event)}<p class="ok" role="status" data-testid="confirmation">Payment complete. Order <strong data-testid="order-id">${e(session.id)}</strong>: ${tickets} ticket${tickets === 1 ? '' : 's'} issued${session.customer?.email ? ` to ${e(session.customer.email)}` : ''}.</p>${link}`,
  );
}

export function processingPage(session: SessionRow): string {
  // A refresh in the head, not a script: the page polls until the order is there.
  return layout('Processing your payment', `<h1>Processing your payment</h1><p class="notice" role="status">Your payment for order ${e(session.id)} is being confirmed. This page refreshes by itself.</p>`).replace(
    '<meta name="robots" content="noindex">',
    `<meta name="robots" content="noindex"><meta http-equiv="refresh" content="2;url=/checkout/${e(session.id)}">`,
  );
}

export function messagePage(title: string, message: string): string {
  return layout(title, `<h1>${e(title)}</h1><p class="error" role="alert" data-testid="error">${e(message)}</p>`);
}
