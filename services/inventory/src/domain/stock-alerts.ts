/**
 * The spec's stock alerts: `ticket_type.low_inventory` for each type of a
 * pool whose availability crossed its threshold, and `event.sold_out` when
 * nothing is left. A hold or a comp take learns of its crossings from the
 * hold script, which compares against each pool's threshold.
 */
import { emitEvent, formatTimestamp, gen, inTransaction, type Pool, type RequestContext } from '@partner-api/shared';
import { CatalogRepository, type EventRow, type PoolRow } from '../storage/catalog-repository';
import type { Catalog } from './catalog';

/** 10% of the pool's capacity, and at least 5 (the spec's low-stock rule). */
export const lowStockThreshold = (capacity: number) => Math.max(5, Math.ceil(capacity / 10));

/** Pools a take crossed into low stock, and pools it sold out. */
export interface StockCrossings {
  lowStock: string[];
  soldOut: string[];
}

export const crossedAny = (crossings: StockCrossings) => crossings.lowStock.length > 0 || crossings.soldOut.length > 0;

export class StockAlerts {
  constructor(
    private readonly pool: Pool,
    private readonly catalog: Catalog,
  ) {}

  async announce(ctx: RequestContext, event: EventRow, pools: PoolRow[], crossings: StockCrossings): Promise<void> {
    const types = await this.catalog.ticketTypeViews(event);
    const organisationId = ctx.organisationId;
    await inTransaction(this.pool, async (client) => {
      for (const poolId of crossings.lowStock) {
        const pool = pools.find((p) => p.id === poolId)!;
        for (const type of types.filter((view) => String(view.poolId) === poolId)) {
          const extra = { threshold: lowStockThreshold(pool.capacity!) };
          await emitEvent(client, { type: 'ticket_type.low_inventory', organisationId, schema: gen.inventory.TicketTypeSchema, view: type, partitionKey: `event:${event.id}`, extra });
        }
      }
      if (crossings.soldOut.length > 0) {
        const [view] = await this.catalog.views([event]);
        if (view?.soldOut) {
          // Selling out changes the event object (`sold_out`): polling partners see it by `updated_since` too.
          view.updatedAt = formatTimestamp(await new CatalogRepository(client).touchEvent(event.id));
          await emitEvent(client, { type: 'event.sold_out', organisationId, schema: gen.inventory.EventSchema, view, partitionKey: `event:${event.id}` });
        }
      }
    });
  }
}
