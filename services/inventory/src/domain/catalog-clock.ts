/**
 * What time alone changes in the catalog: an event becomes `ended`, a
 * ticket type goes `on_sale` or `sale_ended` when its window opens or
 * closes. Nothing is written when that happens, so a partner polling
 * `GET /events?updated_since=…` would never hear of it. Each tick moves
 * the `updated_at` of the events whose status or ticket types' status
 * crossed a boundary since the last tick (one clock for all processes,
 * locked for the tick, so each crossing is stamped once) and marks their
 * catalogs changed, so kept pages and snapshots are read again (D234).
 */
import { inTransaction, type Logger, type Pool } from '@partner-api/shared';
import { CatalogRepository } from '../storage/catalog-repository';
import type { CheckoutCatalog } from './checkout-catalog';

export class CatalogClock {
  constructor(
    private readonly pool: Pool,
    private readonly checkoutCatalog: CheckoutCatalog,
    private readonly logger: Logger,
  ) {}

  /** Returns how many events were stamped. */
  async tick(): Promise<number> {
    const touched = await inTransaction(this.pool, async (client) => {
      const repository = new CatalogRepository(client);
      return repository.touchEventsTimeChanged(await repository.lockClock());
    });
    for (const event of touched) {
      await this.checkoutCatalog.changed(Number(event.organisation_id), event.id).catch((error: unknown) =>
        this.logger.warn({ err: error, eventId: event.id }, 'could not mark the event catalog changed'),
      );
    }
    return touched.length;
  }
}
