/**
 * The channel checkout's first page: an event's ticket types with a
 * quantity for each, in the hosted checkout's look (its layout and
 * stylesheet). Every value from the catalog or the customer is escaped.
 */
import escapeHtml from 'escape-html';
import { layout, localStart, type EventSummary } from './pages';

export interface TicketChoice {
  id: string;
  name: string;
  description?: string;
  /** Fee-inclusive, as the catalog shows it. */
  price: string;
  status: string;
  maxPerOrder: number;
}

export interface ChooserState {
  /** Quantities as the customer typed them, by ticket type id. */
  quantities?: Record<string, string | undefined>;
  error?: string;
  /** The ticket type the error is about, if one. */
  errorTicketType?: string;
}

const e = (value: string | null | undefined) => escapeHtml(value ?? '');

/** The event's waiting-list page; `newTab` where the page is framed (the list's pages may not be). */
export interface WaitlistLink {
  href: string;
  newTab: boolean;
}

const STATUS_TEXT: Record<string, string> = {
  not_yet_on_sale: 'Not on sale yet',
  sale_ended: 'Sales ended',
  sold_out: 'Sold out',
};

/**
 * Only types on sale take a quantity, and the form is offered only when
 * one is. A sold-out type points to the event's waiting list (D404).
 */
export function chooserPage(action: string, token: string, event: EventSummary, types: TicketChoice[], state: ChooserState = {}, waitlist?: WaitlistLink): string {
  const when = `<time datetime="${e(event.startsAt)}" title="${e(event.timezone)}">${e(localStart(event.startsAt, event.timezone))}</time>`;
  const error = state.error ? `<p class="error" role="alert" id="form-error" data-testid="error">${e(state.error)}</p>` : '';
  const rows = types
    .map((type) => {
      const onSale = type.status === 'on_sale';
      const invalid = state.error !== undefined && state.errorTicketType === type.id;
      const input = onSale
        ? `<input type="number" id="quantity_${e(type.id)}" name="quantity_${e(type.id)}" min="0" max="${type.maxPerOrder}" step="1" inputmode="numeric" value="${e(state.quantities?.[type.id] ?? '0')}"${invalid ? ' aria-invalid="true" aria-describedby="form-error"' : ''}>`
        : `<span>${e(STATUS_TEXT[type.status] ?? 'Unavailable')}</span>`;
      return `<tr><td><label for="quantity_${e(type.id)}">${e(type.name)}</label>${type.description ? `<br><small>${e(type.description)}</small>` : ''}</td><td class="num">$${e(type.price)}</td><td class="num">${input}</td></tr>`;
    })
    .join('');
  const table = `<table><thead><tr><th>Ticket</th><th class="num">Price (AUD)</th><th class="num">Quantity</th></tr></thead><tbody>${rows}</tbody></table>`;
  const onSale = types.some((type) => type.status === 'on_sale');
  const soldOut = types.some((type) => type.status === 'sold_out');
  const waitlistLink = waitlist && soldOut
    ? `<p data-testid="waitlist">${onSale ? 'Sold out of the tickets you want?' : 'Tickets may come back.'} <a href="${e(waitlist.href)}"${waitlist.newTab ? ' target="_blank" rel="noopener"' : ''}>Join the waiting list</a> and we will email you when they do.</p>`
    : '';
  let body: string;
  if (onSale) {
    body = `<form method="post" action="${e(action)}">
<input type="hidden" name="token" value="${e(token)}">
${table}<button type="submit">Continue to payment</button>
</form>${waitlistLink}`;
  } else if (types.length) {
    body = `<p class="notice" role="status">${soldOut ? 'Sold out.' : 'No tickets are on sale for this event right now.'}</p>${table}${waitlistLink}`;
  } else {
    body = '<p class="notice" role="status">No tickets are on sale for this event.</p>';
  }
  return layout(`Tickets · ${event.title}`, `<h1>${e(event.title)}</h1>
<p class="when">${when}${event.venue ? ` · ${e(event.venue)}` : ''}</p>${error}${body}`);
}
