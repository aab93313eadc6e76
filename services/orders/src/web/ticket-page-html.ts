/**
 * The ticket page's HTML: mobile first, one card per ticket, each scannable
 * ticket's QR code inline as SVG (no images to fetch, the CSP allows none)
 * as wide as a phone allows up to 20rem, so a door scanner reads it off the
 * screen. Refunded and void tickets say so and show no code. No scripts;
 * every value is escaped.
 */
import { isScannable, type TicketPage } from '../domain/ticket-pages';
import { e } from './pages';
import { qrSvg } from './ticket-qr';
import { attendeeName, eventTime, seatLine, withoutCodeReason } from './ticket-text';

const STYLE = `
*{box-sizing:border-box}html{-webkit-text-size-adjust:100%}
body{margin:0;font-family:system-ui,sans-serif;color:#1d1d1f;background:#f5f5f7;line-height:1.4}
main{max-width:34rem;margin:0 auto;padding:1rem}
h1{font-size:1.5rem;margin:.5rem 0 .25rem}h2{font-size:1.1rem;margin:0}
.event p{margin:.15rem 0;color:#3a3a3c}.event strong{color:#1d1d1f}
ol{list-style:none;margin:0;padding:0}
.ticket{background:#fff;border-radius:12px;padding:1rem;margin:1rem 0;box-shadow:0 1px 3px rgba(0,0,0,.15)}
.ticket p{margin:.25rem 0;overflow-wrap:anywhere}
.qr{width:100%;max-width:20rem;margin:.75rem auto 0;background:#fff}.qr svg{display:block;width:100%;height:auto}
.code{font-family:ui-monospace,Menlo,Consolas,monospace;text-align:center;font-size:1.05rem;letter-spacing:.04em}
.state{padding:.75rem;border-radius:8px;background:#f8d7da;color:#58151c}
.checked{padding:.5rem .75rem;border-radius:8px;background:#fff3cd;color:#523c00}
.button{display:block;text-align:center;padding:.75rem;border-radius:8px;background:#0a58ca;color:#fff;text-decoration:none;font-weight:600;margin:.75rem 0 0}
.button.secondary{background:#1d1d1f}
.note{padding:.75rem;border-radius:8px;background:#e2e3e5}
.hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
`;

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${e(title)}</title><style>${STYLE}</style></head>
<body><main>${body}</main></body></html>`;
}

export interface TicketPageLinks {
  /** The PDF of the page's scannable tickets. */
  pdf: string;
  /** A ticket's Wallet pass; absent when passes are not configured. */
  pass?: (ticketId: bigint) => string;
}

async function ticketCard(ticket: TicketPage['tickets'][number], links: TicketPageLinks, position: number): Promise<string> {
  const heading = `<h2>${e(seatLine(ticket))}</h2>`;
  const name = attendeeName(ticket);
  const attendee = name ? `<p>${e(name)}</p>` : '';
  const attributes = `data-testid="ticket" data-ticket-id="${ticket.id}" data-status="${e(ticket.status)}"`;
  if (!isScannable(ticket)) {
    return `<li class="ticket" ${attributes}>${heading}${attendee}<p class="state" data-testid="no-code">${e(withoutCodeReason(ticket) ?? 'This ticket has no code to show.')}</p></li>`;
  }
  const checked = ticket.status === 'checked_in' ? '<p class="checked">Checked in already.</p>' : '';
  const qr = await qrSvg(ticket.barcode, `QR code of ticket ${position}, ${seatLine(ticket)}`);
  const pass = links.pass ? `<a class="button secondary" href="${e(links.pass(ticket.id))}" download>Add to Apple Wallet<span class="hidden"> (ticket ${position})</span></a>` : '';
  return `<li class="ticket" ${attributes}>${heading}${attendee}${checked}<div class="qr" data-testid="qr">${qr}</div>
<p class="code" data-testid="barcode">${e(ticket.barcode)}</p>${pass}</li>`;
}

export async function ticketPageHtml(page: TicketPage, links: TicketPageLinks): Promise<string> {
  const { event } = page;
  const venue = [event.venueName, event.address].filter(Boolean).join(', ');
  const details = `<div class="event"><p><strong>${e(event.title)}</strong></p>
<p><time datetime="${e(event.startsAt)}">${e(eventTime(event))}</time></p>${event.doors ? `<p>Doors ${e(event.doors)}</p>` : ''}${venue ? `<p>${e(venue)}</p>` : ''}</div>`;
  const cards = await Promise.all(page.tickets.map((ticket, index) => ticketCard(ticket, links, index + 1)));
  const scannable = page.tickets.filter(isScannable).length;
  const pdf = scannable > 0 ? `<a class="button" href="${e(links.pdf)}" download data-testid="pdf">Download ${scannable === 1 ? 'the ticket' : `all ${scannable} tickets`} (PDF)</a>` : '';
  const moved =
    page.transferredAway > 0
      ? `<p class="note" data-testid="transferred">${page.transferredAway} ticket${page.transferredAway === 1 ? ' of this order was' : 's of this order were'} transferred to another attendee and ${page.transferredAway === 1 ? 'is' : 'are'} shown on their page.</p>`
      : '';
  const empty = page.tickets.length === 0 ? '<p class="note">No tickets are shown here.</p>' : '';
  const heading = page.tickets.length === 1 ? 'Your ticket' : 'Your tickets';
  return layout(`${heading} · ${event.title}`, `<h1>${heading}</h1>${details}${pdf}<ol>${cards.join('\n')}</ol>${moved}${empty}`);
}

export function ticketPageMissing(): string {
  return layout(
    'Tickets not found',
    '<h1>Tickets not found</h1><p class="note" role="alert" data-testid="error">This link shows no tickets. Check that it was copied whole; a ticket transferred to someone else is shown on their page, not here.</p>',
  );
}
