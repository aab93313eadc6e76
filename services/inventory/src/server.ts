/** Starts the inventory service; tests call this and own its life. */
import { createMailer, gen, mailDomain, ServiceRuntime, type Logger } from '@partner-api/shared';
import type { InventoryConfig } from './config';
import { Catalog } from './domain/catalog';
import { CatalogAdmin } from './domain/catalog-admin';
import { CatalogClock } from './domain/catalog-clock';
import { CheckoutCatalog } from './domain/checkout-catalog';
import { CompStock } from './domain/comp-stock';
import { HoldDesk } from './domain/hold-desk';
import { RefundRestocks } from './domain/refund-restocks';
import { SeatBinder } from './domain/seat-binding';
import { SeatingPlans } from './domain/seating-plans';
import { StockAlerts } from './domain/stock-alerts';
import { HoldBook } from './storage/hold-book';
import { HoldRecords } from './storage/hold-records';
import { HoldRepository } from './storage/hold-repository';
import { inventoryHandlers } from './grpc/handlers';
import { InventoryMetrics } from './metrics';
import { CatalogRepository } from './storage/catalog-repository';
import { CatalogVersions } from './storage/catalog-versions';
import { HotPools } from './storage/hot-pools';
import { inventoryRedis } from './storage/redis-gate';
import { StockStore } from './storage/stock-store';
import { OfferEmails } from './domain/offer-emails';
import { WaitlistDesk } from './domain/waitlist-desk';
import { WaitlistEntries } from './storage/waitlist-entries';
import { WaitlistStock } from './storage/waitlist-stock';

/** Expired holds released per sweep query, and at most this many queries a tick (25 × 200 = 5,000 holds a second by default). */
const SWEEP_BATCH = 200;
const SWEEP_BATCHES_PER_TICK = 25;

export const SCHEMA = 'inventory';

export async function startInventory(config: InventoryConfig, logger?: Logger): Promise<ServiceRuntime> {
  const runtime = new ServiceRuntime('inventory', config, logger);
  const pool = runtime.postgres(config.DATABASE_URL, SCHEMA, config.DATABASE_POOL_SIZE);
  await runtime.outboxRelay(pool, config);
  const { redis, gate } = inventoryRedis(runtime, config);
  const repository = new CatalogRepository(pool);
  const book = new HoldBook(redis, gate);
  const stock = new StockStore(redis, repository, book, gate);
  const versions = new CatalogVersions(redis);
  const catalog = new Catalog(repository, stock, versions, { publicSiteUrl: config.PUBLIC_SITE_URL });
  const checkoutCatalog = new CheckoutCatalog(repository, versions);
  const admin = new CatalogAdmin(pool, catalog, stock, checkoutCatalog, runtime.logger);
  const holdRepository = new HoldRepository(pool);
  const holds = new HoldDesk(pool, holdRepository, repository, stock, book, catalog, checkoutCatalog, new HoldRecords(pool), new StockAlerts(pool, catalog), runtime.logger);
  const desks = {
    holds,
    comps: new CompStock(pool, holds, holdRepository, repository, book, runtime.logger),
    restocks: new RefundRestocks(pool, holds, holdRepository, book),
  };
  const waitlists = new WaitlistDesk(pool, repository, stock, new WaitlistStock(redis, gate), catalog, runtime.logger, { offerTtlSeconds: config.WAITLIST_OFFER_TTL_SECONDS });
  const metrics = new InventoryMetrics(runtime.metrics, gate, new HotPools(pool, redis, gate, config.METRICS_HOT_POOLS));
  // Serve once Redis is verified; if it is down, start anyway (not ready) and open when it is back.
  await gate.whenOpen(config.REDIS_VERIFY_TIMEOUT_MS).catch((error: unknown) => runtime.logger.warn({ err: error }, 'starting before redis is available'));
  // The listed methods finish or give back admitted work, so the call gate never sheds them (D449).
  await runtime.serveGrpc(gen.inventory.InventoryService, inventoryHandlers(catalog, admin, desks, waitlists, metrics, new SeatingPlans(pool), new SeatBinder(pool, stock)), config.GRPC_PORT, [
    'releaseHold',
    'commitHold',
    'returnStock',
    'restockRefund',
  ]);
  runtime.every('hold sweeper', config.HOLD_SWEEP_INTERVAL_MS, async () => {
    // A backlog (an on-sale's lapsed holds) drains batch after batch within one tick, up to a bound, not one batch a tick.
    for (let batch = 0; batch < SWEEP_BATCHES_PER_TICK; batch += 1) {
      const swept = await holds.sweep(SWEEP_BATCH);
      metrics.expiredHolds(swept);
      if (swept < SWEEP_BATCH) return;
    }
  });
  runtime.every('stranded hold settler', config.HOLD_SETTLE_INTERVAL_MS, () => holds.settleStranded());
  runtime.every('waitlist allocator', config.WAITLIST_INTERVAL_MS, () => waitlists.allocateAll());
  const mailer = createMailer(config.MAILER, config, runtime.logger);
  runtime.lifecycle.onShutdown('offer mailer', () => mailer.close());
  const offerEmails = new OfferEmails(new WaitlistEntries(pool), mailer, { checkoutBaseUrl: config.CHECKOUT_BASE_URL, messageIdDomain: mailDomain(config.MAIL_FROM) }, runtime.logger);
  runtime.every('waitlist offer emails', config.WAITLIST_EMAIL_INTERVAL_MS, () => offerEmails.sendDue());
  const clock = new CatalogClock(pool, checkoutCatalog, runtime.logger);
  runtime.every('catalog clock', config.CATALOG_CLOCK_INTERVAL_MS, () => clock.tick());
  await runtime.ready();
  return runtime;
}
