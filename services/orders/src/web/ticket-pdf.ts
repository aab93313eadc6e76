/**
 * A PDF of a page's scannable tickets (pdfkit, D425): one A4 page each with
 * the event, time, venue, seat and attendee, and the ticket's QR code drawn
 * as vector squares (crisp at any print size), 60 mm wide with its quiet zone.
 */
import PDFDocument from 'pdfkit';
import type { EventDetails, PageTicket } from '../domain/ticket-pages';
import { QUIET_ZONE, qrModules } from './ticket-qr';
import { attendeeName, eventTime, seatLine } from './ticket-text';

const MM = 72 / 25.4;
const QR_WIDTH = 60 * MM;

/**
 * The built-in PDF fonts encode Windows-1252 only: characters outside it
 * print as '?' rather than as garbage (names in other scripts are on the page
 * and the pass, which use the device's fonts).
 */
const WIN_ANSI_EXTRA = new Set('€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ');
export const pdfText = (text: string): string => [...text].map((char) => (char.charCodeAt(0) < 256 || WIN_ANSI_EXTRA.has(char) ? char : '?')).join('');

function drawQr(doc: PDFKit.PDFDocument, text: string, x: number, y: number): void {
  const { size, isDark } = qrModules(text);
  const unit = QR_WIDTH / (size + 2 * QUIET_ZONE);
  doc.rect(x, y, QR_WIDTH, QR_WIDTH).fill('#ffffff');
  for (let row = 0; row < size; row++) {
    // A run of dark modules is one rectangle: fewer operators, no hairline gaps between them.
    for (let column = 0; column < size; column++) {
      if (!isDark(row, column)) continue;
      const start = column;
      while (column + 1 < size && isDark(row, column + 1)) column++;
      doc.rect(x + (QUIET_ZONE + start) * unit, y + (QUIET_ZONE + row) * unit, (column - start + 1) * unit, unit);
    }
  }
  doc.fill('#000000');
}

export function ticketsPdf(event: EventDetails, tickets: PageTicket[]): Promise<Buffer> {
  const doc = new PDFDocument({ size: 'A4', margin: 56, autoFirstPage: false, info: { Title: pdfText(`Tickets · ${event.title}`) } });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  tickets.forEach((ticket, index) => {
    doc.addPage();
    const width = doc.page.width - 2 * doc.page.margins.left;
    doc.fillColor('#1d1d1f').font('Helvetica-Bold').fontSize(22).text(pdfText(event.title), { width });
    doc.moveDown(0.3).font('Helvetica').fontSize(12).text(pdfText(eventTime(event)), { width });
    if (event.doors) doc.text(pdfText(`Doors ${event.doors}`), { width });
    const venue = [event.venueName, event.address].filter(Boolean).join(', ');
    if (venue) doc.text(pdfText(venue), { width });
    doc.moveDown().font('Helvetica-Bold').fontSize(16).text(pdfText(seatLine(ticket)), { width });
    const name = attendeeName(ticket) || ticket.attendee?.email;
    if (name) doc.font('Helvetica').fontSize(12).text(pdfText(name), { width });
    const top = doc.y + 18;
    drawQr(doc, ticket.barcode, doc.page.margins.left + (width - QR_WIDTH) / 2, top);
    doc
      .fillColor('#1d1d1f')
      .font('Courier')
      .fontSize(12)
      .text(ticket.barcode, doc.page.margins.left, top + QR_WIDTH + 10, { width, align: 'center' });
    doc.font('Helvetica').fontSize(9).fillColor('#555555').text(`Ticket ${ticket.id} · ${index + 1} of ${tickets.length}`, { width, align: 'center' });
  });
  doc.end();
  return done;
}
