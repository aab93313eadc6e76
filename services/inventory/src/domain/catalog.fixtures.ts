/** Row builders for the catalog's unit tests (excluded from the build). */
import type { EventRow, PoolRow, TicketTypeRow } from '../storage/catalog-repository';

export const NOW = new Date('2026-11-22T00:00:00Z');
export const day = (n: number) => new Date(NOW.getTime() + n * 86_400_000);

export const eventRow = (overrides: Partial<EventRow> = {}): EventRow => ({
  id: '1', organisation_id: '1', slug: 'show', title: 'Show', summary: null, description: null, status: 'published',
  starts_at: day(10), ends_at: day(10.2), timezone: 'Australia/Sydney', doors: null, image_url: null, on_sale_at: null,
  venue_id: null, categories: [], marked_sold_out: false, created_at: day(-5), updated_at: day(-1), ...overrides,
});

export const ticketTypeRow = (overrides: Partial<TicketTypeRow> = {}): TicketTypeRow => ({
  id: '1', event_id: '1', name: 'GA', description: null, price_cents: '5000', booking_fee_cents: '300', gst_applies: true,
  min_per_order: 1, max_per_order: 10, sale_starts_at: null, sale_ends_at: null, hidden: false, seated: false,
  pool_ids: ['1'], ...overrides,
});

export const poolRow = (overrides: Partial<PoolRow> = {}): PoolRow => ({ id: '1', event_id: '1', name: 'GA', capacity: 100, sold: 0, ...overrides });
