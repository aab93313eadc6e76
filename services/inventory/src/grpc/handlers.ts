/** gRPC handlers: decode, call the domain, return the API-shaped message. */
import type { gen, ServiceHandlers } from '@partner-api/shared';
import type { Catalog } from '../domain/catalog';
import type { CatalogAdmin } from '../domain/catalog-admin';
import type { CompStock } from '../domain/comp-stock';
import type { HoldDesk } from '../domain/hold-desk';
import type { RefundRestocks } from '../domain/refund-restocks';
import type { SeatBinder } from '../domain/seat-binding';
import type { SeatingPlans } from '../domain/seating-plans';
import type { WaitlistDesk } from '../domain/waitlist-desk';
import type { InventoryMetrics } from '../metrics';

type InventoryMethods = (typeof gen.inventory.InventoryService)['method'];

/** What moves stock: checkout holds, comp takes and refund give-backs. */
export interface StockDesks {
  holds: HoldDesk;
  comps: CompStock;
  restocks: RefundRestocks;
}

export function inventoryHandlers(
  catalog: Catalog,
  admin: CatalogAdmin,
  stock: StockDesks,
  waitlists: WaitlistDesk,
  metrics: InventoryMetrics,
  seatingPlans: SeatingPlans,
  seatBinder: SeatBinder,
): Partial<ServiceHandlers<InventoryMethods>> {
  const { holds, comps, restocks } = stock;
  return {
    getEvent: (request, ctx) => catalog.getEvent(ctx, request.idOrSlug),
    listEvents: async (request, ctx) => {
      const page = {
        status: request.status,
        time: request.time,
        q: request.q,
        updatedSince: request.updatedSince,
        limit: request.page?.limit || 25,
        after: request.page?.after ?? '',
      };
      if (!request.renderJson) return catalog.listEvents(ctx, page);
      const { json, tag, unchanged, pageInfo } = await catalog.listEventsJson(ctx, page, request.knownJsonTag);
      return { dataJson: json, jsonTag: tag, jsonUnchanged: unchanged, pageInfo };
    },
    listTicketTypes: async (request, ctx) => ({ data: await catalog.listTicketTypes(ctx, request.eventIdOrSlug) }),
    listVenues: (request, ctx) => catalog.listVenues(ctx, request.page?.limit || 25, request.page?.after ?? ''),
    getVenue: (request, ctx) => catalog.getVenue(ctx, request.id),

    holdStock: (request, ctx) =>
      metrics.hold(holds.hold(ctx, {
        holdId: request.holdId,
        eventIdOrSlug: request.eventIdOrSlug,
        lines: request.lines.map((line) => ({
          ticketTypeId: line.ticketTypeId.toString(),
          quantity: line.quantity,
          poolId: line.poolId === undefined ? undefined : line.poolId.toString(),
        })),
        ttlSeconds: request.ttlSeconds,
      })),
    releaseHold: async (request) => ({ released: await holds.release(request.holdId) }),
    commitHold: async (request) => ({ committed: await holds.commit(request.holdId) }),
    takeCompStock: (request, ctx) =>
      comps.take(ctx, {
        batchId: request.batchId,
        eventIdOrSlug: request.eventIdOrSlug,
        ticketTypeId: request.ticketTypeId.toString(),
        poolId: request.poolId === undefined ? undefined : request.poolId.toString(),
        quantity: request.quantity,
      }),
    returnStock: async (request, ctx) => ({ returned: await comps.giveBack(ctx, request.batchId) }),
    restockRefund: async (request, ctx) => ({
      returned: await restocks.restock(
        ctx,
        request.refundId,
        request.eventId.toString(),
        request.lines.map((line) => ({ poolId: line.poolId.toString(), quantity: line.quantity })),
      ),
    }),

    upsertVenue: (request, ctx) => admin.upsertVenue(ctx, request),
    upsertEvent: (request, ctx) => admin.upsertEvent(ctx, request),
    changeEventStatus: (request, ctx) => admin.changeEventStatus(ctx, request.idOrSlug, request.action),
    upsertPool: (request, ctx) => admin.upsertPool(ctx, request),
    upsertTicketType: (request, ctx) => admin.upsertTicketType(ctx, request),
    importSeatingPlan: (request) => seatingPlans.import(request.venueId, request.documentJson),
    getSeatingPlan: (request) => seatingPlans.get(request.venueId, request.version),
    bindSeatingPlan: (request) => seatBinder.bind({ poolId: request.poolId, version: request.version, sections: request.sections }),

    joinWaitlist: (request, ctx) =>
      waitlists.join(ctx, request.eventId.toString(), { ticketTypeId: request.ticketTypeId.toString(), email: request.email, quantity: request.quantity }),
    getWaitlistForm: (request, ctx) => waitlists.form(ctx, request.eventId.toString()),
    getWaitlistOffer: (request, ctx) => waitlists.offer(ctx, request.holdId),
    listWaitlist: async (request, ctx) => ({ data: await waitlists.list(ctx, request.eventIdOrSlug) }),
    releaseWaitlist: async (request, ctx) => ({
      object: 'waitlist_release',
      ...(await waitlists.release(ctx, request.eventIdOrSlug, request.poolId.toString(), Number(request.count))),
    }),
  };
}
