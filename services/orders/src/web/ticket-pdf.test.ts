import { create } from '@bufbuild/protobuf';
import { gen } from '@partner-api/shared';
import { pdfText, ticketsPdf } from './ticket-pdf';

describe('the tickets PDF', () => {
  it('has one page per ticket', async () => {
    const tickets = [1n, 2n, 3n].map((id) => create(gen.tickets.TicketSchema, { id, barcode: `CODE${id}`, status: 'valid', ticketTypeName: 'GA' }));
    const pdf = await ticketsPdf({ title: 'Night', startsAt: '2026-12-31T09:00:00Z', timezone: 'Australia/Sydney' }, tickets);
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    expect(pdf.toString('latin1').match(/\/Type \/Page\b/g)).toHaveLength(3);
  });

  it('keeps what its built-in fonts can print and marks the rest', () => {
    expect(pdfText('Zoë – “Café” €5')).toBe('Zoë – “Café” €5');
    expect(pdfText('李 Ann 🎟')).toBe('? Ann ?');
  });
});
