/**
 * What the emails that carry tickets say (D411): the order's tickets to its
 * buyer, a transferred ticket to its new attendee, and a note to the
 * previous attendee. Each is HTML with a plain-text part; every QR code is
 * an inline PNG attachment (`cid:`), never a remote image, encoding the
 * ticket's current barcode; times are in the venue's own time zone, named;
 * the order's and the new attendee's emails carry the event as an .ics file.
 */
import { createEvent, type EventAttributes } from 'ics';
import QRCode from 'qrcode';
import type { MailAttachment, MailMessage } from '@partner-api/shared';
import type { TicketRow } from '../storage/ticket-repository';

/** The event as inventory describes it, the fields an email shows. */
export interface MailEvent {
  id: string;
  title: string;
  startsAt: string;
  endsAt: string | null;
  timezone: string;
  doors: string | null;
  venue: { name: string; address: string } | null;
}

export interface Recipient {
  email: string;
  name: string | null;
}

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export const attendeeName = (ticket: Pick<TicketRow, 'attendee_first_name' | 'attendee_last_name'>): string | null =>
  [ticket.attendee_first_name, ticket.attendee_last_name].filter(Boolean).join(' ') || null;

/** `Saturday 13 March 2027, 8:00 pm AEDT (Australia/Sydney)`: the venue's wall clock, its zone named twice over. */
export function venueTime(iso: string, timezone: string): string {
  const when = new Date(iso);
  const local = new Intl.DateTimeFormat('en-AU', {
    timeZone: timezone,
    weekday: 'long',
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    hour: 'numeric',
    minute: '2-digit',
    timeZoneName: 'short',
  }).format(when);
  return `${local} (${timezone})`;
}

/** The lines that say where and when, shared by the text and HTML parts. */
function eventLines(event: MailEvent): string[] {
  return [
    event.venue ? `${event.venue.name}, ${event.venue.address}` : null,
    event.doors ? `Doors open ${event.doors} (${event.timezone})` : null,
    `Starts ${venueTime(event.startsAt, event.timezone)}`,
  ].filter((line): line is string => line !== null);
}

const ticketLabel = (ticket: TicketRow): string => [ticket.ticket_type_name, ticket.seat_label ? `seat ${ticket.seat_label}` : null].filter(Boolean).join(', ');

/** A QR code as an inline PNG, sized to scan from a printout or a phone. */
async function qrAttachment(ticket: TicketRow): Promise<MailAttachment> {
  const png = await QRCode.toBuffer(ticket.barcode, { type: 'png', errorCorrectionLevel: 'M', margin: 2, width: 320 });
  return { filename: `ticket-${ticket.id}.png`, content: png, contentType: 'image/png', cid: `ticket-${ticket.id}@qr` };
}

/** The event as a calendar entry, in UTC (calendars show it in the reader's zone). */
export function calendarFile(event: MailEvent, url: string): MailAttachment {
  const start = Date.parse(event.startsAt);
  const attributes: EventAttributes = {
    uid: `event-${event.id}@tickets`,
    title: event.title,
    start,
    startInputType: 'utc',
    startOutputType: 'utc',
    ...(event.endsAt ? { end: Date.parse(event.endsAt), endInputType: 'utc' as const, endOutputType: 'utc' as const } : { duration: { hours: 3 } }),
    ...(event.venue ? { location: `${event.venue.name}, ${event.venue.address}` } : {}),
    url,
    description: `Your tickets: ${url}`,
  };
  const { error, value } = createEvent(attributes);
  if (error || !value) throw new Error(`the calendar file could not be made: ${error?.message ?? 'no value'}`);
  return { filename: 'event.ics', content: value, contentType: 'text/calendar; charset=utf-8; method=PUBLISH' };
}

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(title)}</title></head>` +
    `<body style="font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;color:#1a1a1a;max-width:560px;margin:0 auto;padding:16px">${body}</body></html>`;
}

function eventHtml(event: MailEvent): string {
  return `<h1 style="font-size:22px">${escapeHtml(event.title)}</h1>` + eventLines(event).map((line) => `<p style="margin:4px 0">${escapeHtml(line)}</p>`).join('');
}

function ticketHtml(ticket: TicketRow, attachment: MailAttachment): string {
  const name = attendeeName(ticket);
  return (
    `<div style="border:1px solid #ccc;border-radius:8px;padding:12px;margin:16px 0">` +
    `<p style="margin:4px 0"><strong>${escapeHtml(ticketLabel(ticket))}</strong></p>` +
    (name ? `<p style="margin:4px 0">Attendee: ${escapeHtml(name)}</p>` : '') +
    `<img src="cid:${attachment.cid}" width="240" height="240" alt="QR code of ticket ${ticket.id}">` +
    `<p style="margin:4px 0;font-family:monospace">${escapeHtml(ticket.barcode)}</p>` +
    `<p style="margin:4px 0;color:#555">Ticket ${ticket.id}</p></div>`
  );
}

function ticketText(ticket: TicketRow): string[] {
  const name = attendeeName(ticket);
  return [`- ${ticketLabel(ticket)}`, ...(name ? [`  Attendee: ${name}`] : []), `  Ticket: ${ticket.id}`, `  Code: ${ticket.barcode}`];
}

/** The order's tickets for its buyer (and, the same message, for a resend). */
export async function composeOrderMail(input: {
  to: Recipient;
  orderId: string;
  event: MailEvent;
  tickets: TicketRow[];
  ticketPageUrl: string;
  messageId: string;
}): Promise<MailMessage> {
  const { event, tickets } = input;
  const qrs = await Promise.all(tickets.map(qrAttachment));
  const count = tickets.length === 1 ? '1 ticket' : `${tickets.length} tickets`;
  const subject = `Your tickets to ${event.title}`;
  const text = [
    `Hi ${input.to.name ?? 'there'},`,
    '',
    `Here are your ${count} to ${event.title}.`,
    ...eventLines(event),
    '',
    ...tickets.flatMap(ticketText),
    '',
    `Your tickets, with their QR codes, Apple Wallet passes and a PDF: ${input.ticketPageUrl}`,
    'Each code admits one person once. Order ' + input.orderId + '.',
  ].join('\n');
  const html = page(
    subject,
    eventHtml(event) +
      `<p>Here are your ${count}. Show each QR code at the door; it admits one person once.</p>` +
      tickets.map((ticket, i) => ticketHtml(ticket, qrs[i]!)).join('') +
      `<p><a href="${escapeHtml(input.ticketPageUrl)}">Open your tickets</a> (QR codes, Apple Wallet passes and a PDF).</p>` +
      `<p style="color:#555">Order ${escapeHtml(input.orderId)}</p>`,
  );
  return {
    to: input.to.email,
    toName: input.to.name,
    subject,
    text,
    html,
    attachments: [...qrs, calendarFile(event, input.ticketPageUrl)],
    messageId: input.messageId,
  };
}

/** A transferred ticket for its new attendee, with its new code. */
export async function composeTransferReceivedMail(input: { ticket: TicketRow; event: MailEvent; ticketPageUrl: string; messageId: string }): Promise<MailMessage> {
  const { ticket, event } = input;
  const qr = await qrAttachment(ticket);
  const name = attendeeName(ticket);
  const subject = `A ticket to ${event.title} is yours`;
  const text = [
    `Hi ${ticket.attendee_first_name ?? 'there'},`,
    '',
    `A ticket to ${event.title} has been transferred to you.`,
    ...eventLines(event),
    '',
    ...ticketText(ticket),
    '',
    `Your ticket, with its QR code: ${input.ticketPageUrl}`,
    'The code admits one person once.',
  ].join('\n');
  const html = page(
    subject,
    eventHtml(event) +
      `<p>A ticket has been transferred to you. Show its QR code at the door.</p>` +
      ticketHtml(ticket, qr) +
      `<p><a href="${escapeHtml(input.ticketPageUrl)}">Open your ticket</a></p>`,
  );
  return { to: ticket.attendee_email!, toName: name, subject, text, html, attachments: [qr, calendarFile(event, input.ticketPageUrl)], messageId: input.messageId };
}

/** The previous attendee's note: the ticket has moved, and its old code no longer admits anyone. */
export function composeTransferMovedMail(input: { to: Recipient; ticket: TicketRow; event: MailEvent; messageId: string }): MailMessage {
  const { ticket, event } = input;
  const subject = `Your ticket to ${event.title} has moved`;
  const lines = [
    `Your ${ticketLabel(ticket)} ticket (ticket ${ticket.id}) to ${event.title} has been transferred to another attendee.`,
    'Its old code no longer admits anyone. If you did not expect this, contact the organiser.',
  ];
  const text = [`Hi ${input.to.name ?? 'there'},`, '', ...lines, '', ...eventLines(event)].join('\n');
  const html = page(subject, eventHtml(event) + lines.map((line) => `<p>${escapeHtml(line)}</p>`).join(''));
  return { to: input.to.email, toName: input.to.name, subject, text, html, messageId: input.messageId };
}
