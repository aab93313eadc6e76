/**
 * Platform operations on the catalog (run by partnerctl over gRPC): create
 * and edit venues, events, pools and ticket types; publish, cancel and mark
 * events sold out. Each change and the event it announces commit together
 * through the outbox.
 */
import { create, type MessageShape } from '@bufbuild/protobuf';
import {
  emitEvent,
  gen,
  inTransaction,
  notFound,
  type EventType,
  type Logger,
  type Pool,
  type PoolClient,
  type RequestContext,
} from '@partner-api/shared';
import { CatalogRepository, type EventRow } from '../storage/catalog-repository';
import { CatalogWrites } from '../storage/catalog-writes';
import type { StockStore } from '../storage/stock-store';
import type { Catalog } from './catalog';
import type { CheckoutCatalog } from './checkout-catalog';
import { explainConstraints } from '../storage/constraint-errors';
import { venueView, type EventInit, type TicketTypeInit, type VenueInit } from './catalog-view';
import { camel, cents, EVENT_COLUMNS, invalid, nullable, required, sameValue, timestamp } from './catalog-fields';

type UpsertVenue = MessageShape<typeof gen.inventory.UpsertVenueRequestSchema>;
type UpsertEvent = MessageShape<typeof gen.inventory.UpsertEventRequestSchema>;
type UpsertPool = MessageShape<typeof gen.inventory.UpsertPoolRequestSchema>;
type UpsertTicketType = MessageShape<typeof gen.inventory.UpsertTicketTypeRequestSchema>;
type PoolInit = { object: 'pool'; id: bigint; eventId: bigint; name: string; capacity?: bigint };

export class CatalogAdmin {
  constructor(
    private readonly pool: Pool,
    private readonly catalog: Catalog,
    private readonly stock: StockStore,
    private readonly checkoutCatalog: CheckoutCatalog,
    private readonly logger: Logger,
  ) {}

  /** After a catalog write to the event commits: checkouts on every process read its catalog again. */
  private async committed<T>(ctx: RequestContext, eventId: bigint | string | undefined, value: T): Promise<T> {
    if (eventId === undefined) return value;
    await this.checkoutCatalog.changed(ctx.organisationId, String(eventId)).catch((error: unknown) =>
      // Not the caller's failure: the write is committed, and snapshots expire by themselves (SNAPSHOT_TTL_MS).
      this.logger.error({ err: error, eventId: String(eventId) }, 'could not mark the event catalog changed'),
    );
    return value;
  }

  private async emit(client: PoolClient, ctx: RequestContext, type: EventType, view: EventInit, extra = {}): Promise<void> {
    await emitEvent(client, { type, organisationId: ctx.organisationId, schema: gen.inventory.EventSchema, view, partitionKey: `event:${view.id}`, extra });
  }

  private async lockedEvent(client: PoolClient, ctx: RequestContext, idOrSlug: string): Promise<EventRow> {
    const event = await new CatalogRepository(client).findEvent(ctx.organisationId, idOrSlug, true);
    if (!event) throw notFound('event');
    return event;
  }

  upsertVenue(_ctx: RequestContext, request: UpsertVenue): Promise<VenueInit> {
    return explainConstraints(() => this.writeVenue(_ctx, request));
  }

  private async writeVenue(_ctx: RequestContext, request: UpsertVenue): Promise<VenueInit> {
    const fields = request.fields ?? create(gen.inventory.VenueFieldsSchema);
    const values: Record<string, unknown> = {
      name: fields.name, slug: fields.slug, line1: fields.line1, line2: fields.line2 === undefined ? undefined : nullable(fields.line2),
      locality: fields.locality, state: fields.state, postal_code: fields.postalCode, country: fields.country?.toUpperCase(),
      lat: fields.lat, lng: fields.lng, url: fields.url === undefined ? undefined : nullable(fields.url),
      phone: fields.phone === undefined ? undefined : nullable(fields.phone),
      removed_at: fields.removed === undefined ? undefined : fields.removed ? new Date() : null,
    };
    const set = Object.entries(values).filter(([, value]) => value !== undefined);
    const writes = new CatalogWrites(this.pool);
    if (request.id === undefined) {
      for (const column of ['name', 'slug', 'line1', 'locality', 'state', 'postal_code', 'country']) {
        if (values[column] === undefined) throw required(column);
      }
      return venueView(await writes.insertVenue(set));
    }
    const venue = await writes.updateVenue(request.id, set);
    if (!venue) throw notFound('venue');
    return venueView(venue);
  }

  upsertEvent(ctx: RequestContext, request: UpsertEvent): Promise<EventInit> {
    return explainConstraints(() => this.writeEvent(ctx, request));
  }

  private async writeEvent(ctx: RequestContext, request: UpsertEvent): Promise<EventInit> {
    const view = await this.writeEventRow(ctx, request);
    return this.committed(ctx, view.id, view);
  }

  private async writeEventRow(ctx: RequestContext, request: UpsertEvent): Promise<EventInit> {
    const fields = request.fields ?? create(gen.inventory.EventFieldsSchema);
    const given = Object.entries(EVENT_COLUMNS).flatMap(([name, { column, read }]) => {
      const value = (fields as unknown as Record<string, string | undefined>)[camel(name)];
      return value === undefined ? [] : [{ name, column, value: read(value) }];
    });
    if (fields.venueId !== undefined) given.push({ name: 'venue', column: 'venue_id', value: fields.venueId.toString() });
    if (fields.setCategories) given.push({ name: 'categories', column: 'categories', value: fields.categories });

    const columnValues = (fields: typeof given) => fields.map((field) => [field.column, field.value] as const);
    return inTransaction(this.pool, async (client) => {
      const repository = new CatalogRepository(client);
      const writes = new CatalogWrites(client);
      if (request.idOrSlug === undefined) {
        for (const column of ['slug', 'title', 'starts_at', 'timezone']) {
          if (!given.some((field) => field.column === column)) throw required(column);
        }
        const eventId = await writes.insertEvent(ctx.organisationId, columnValues(given));
        const event = await repository.findEvent(ctx.organisationId, eventId);
        return (await this.catalog.views([event!], repository))[0]!;
      }
      const before = await this.lockedEvent(client, ctx, request.idOrSlug);
      const changed = given.filter((field) => !sameValue((before as unknown as Record<string, unknown>)[field.column], field.value));
      if (changed.length === 0) return (await this.catalog.views([before], repository))[0]!;
      await writes.updateEvent(before.id, columnValues(changed));
      const view = (await this.catalog.views([(await repository.findEvent(ctx.organisationId, before.id))!], repository))[0]!;
      if (before.status === 'published') {
        await this.emit(client, ctx, 'event.updated', view, { changed_fields: changed.map((field) => field.name) });
      }
      return view;
    });
  }

  async changeEventStatus(ctx: RequestContext, idOrSlug: string, action: string): Promise<EventInit> {
    const view = await inTransaction(this.pool, async (client) => {
      const repository = new CatalogRepository(client);
      const writes = new CatalogWrites(client);
      const event = await this.lockedEvent(client, ctx, idOrSlug);
      const transition = async (to: EventRow['status'], from: EventRow['status'][], announce?: EventType) => {
        if (event.status === to) return;
        if (!from.includes(event.status)) throw invalid('action', `Cannot ${action} an event that is ${event.status}.`);
        await writes.setEventStatus(event.id, to);
        if (announce) await this.emit(client, ctx, announce, await this.viewOf(repository, ctx, event.id));
      };
      switch (action) {
        case 'publish':
          await transition('published', ['draft', 'pending_review'], 'event.published');
          break;
        case 'unpublish':
          await transition('draft', ['published', 'pending_review']);
          break;
        case 'submit_for_review':
          await transition('pending_review', ['draft']);
          break;
        case 'cancel':
          await transition('cancelled', ['draft', 'pending_review', 'published'], 'event.cancelled');
          break;
        case 'mark_sold_out':
          if (!event.marked_sold_out) {
            await writes.markEventSoldOut(event.id);
            await this.emit(client, ctx, 'event.sold_out', await this.viewOf(repository, ctx, event.id));
          }
          break;
        default:
          throw invalid('action', 'action must be publish, unpublish, submit_for_review, cancel or mark_sold_out.');
      }
      return this.viewOf(repository, ctx, event.id);
    });
    return this.committed(ctx, view.id, view);
  }

  private async viewOf(repository: CatalogRepository, ctx: RequestContext, eventId: string): Promise<EventInit> {
    const event = await repository.findEvent(ctx.organisationId, eventId);
    return (await this.catalog.views([event!], repository))[0]!;
  }

  upsertPool(ctx: RequestContext, request: UpsertPool): Promise<PoolInit> {
    return explainConstraints(() => this.writePool(ctx, request));
  }

  private async writePool(ctx: RequestContext, request: UpsertPool): Promise<PoolInit> {
    const fields = request.fields ?? create(gen.inventory.PoolFieldsSchema);
    const capacity = fields.uncapped ? null : fields.capacity === undefined ? undefined : Number(fields.capacity);
    if (typeof capacity === 'number' && (!Number.isSafeInteger(capacity) || capacity < 0)) {
      throw invalid('capacity', 'capacity must be a whole number of tickets.');
    }
    const row = await inTransaction(this.pool, async (client) => {
      const writes = new CatalogWrites(client);
      if (request.id === undefined) {
        if (request.eventIdOrSlug === undefined) throw required('event_id');
        if (!fields.name) throw required('name');
        if (capacity === undefined) throw required('capacity');
        const event = await this.lockedEvent(client, ctx, request.eventIdOrSlug);
        const created = await writes.insertPool(event.id, fields.name, capacity);
        await new CatalogRepository(client).touchEvent(event.id);
        return created;
      }
      const before = await writes.lockPoolForChange(request.id, ctx.organisationId, typeof capacity === 'number');
      if (!before) throw notFound('pool');
      if (typeof capacity === 'number' && capacity < before.sold) {
        throw invalid('capacity', `capacity cannot go below the ${before.sold} tickets already sold.`);
      }
      const after = await writes.updatePool(before.id, fields.name ?? null, capacity);
      if (capacity !== undefined) {
        if (before.capacity === null || after.capacity === null) await this.stock.forget(after);
        else await this.stock.adjust(after, after.capacity - before.capacity);
      }
      await new CatalogRepository(client).touchEvent(after.event_id);
      return after;
    });
    return this.committed(ctx, row.event_id, { object: 'pool', id: BigInt(row.id), eventId: BigInt(row.event_id), name: row.name, capacity: row.capacity === null ? undefined : BigInt(row.capacity) });
  }

  upsertTicketType(ctx: RequestContext, request: UpsertTicketType): Promise<TicketTypeInit> {
    return explainConstraints(() => this.writeTicketType(ctx, request));
  }

  private async writeTicketType(ctx: RequestContext, request: UpsertTicketType): Promise<TicketTypeInit> {
    const fields = request.fields ?? create(gen.inventory.TicketTypeFieldsSchema);
    const values: Record<string, unknown> = {
      name: fields.name,
      description: fields.description === undefined ? undefined : nullable(fields.description),
      price_cents: fields.price === undefined ? undefined : cents('price', fields.price),
      booking_fee_cents: fields.bookingFee === undefined ? undefined : cents('booking_fee', fields.bookingFee),
      gst_applies: fields.gstApplies,
      min_per_order: fields.minPerOrder,
      max_per_order: fields.maxPerOrder,
      sale_starts_at: fields.saleStartsAt === undefined ? undefined : timestamp('sale_starts_at', fields.saleStartsAt),
      sale_ends_at: fields.saleEndsAt === undefined ? undefined : timestamp('sale_ends_at', fields.saleEndsAt),
      hidden: fields.hidden,
      seated: fields.seated,
    };
    const set = Object.entries(values).filter(([, value]) => value !== undefined);
    const view = await inTransaction(this.pool, async (client) => {
      const writes = new CatalogWrites(client);
      let event: EventRow;
      let typeId: string;
      if (request.id === undefined) {
        if (request.eventIdOrSlug === undefined) throw required('event_id');
        for (const column of ['name', 'price_cents']) if (values[column] === undefined) throw required(column === 'price_cents' ? 'price' : column);
        if (fields.poolIds.length === 0) throw required('pool_ids');
        event = await this.lockedEvent(client, ctx, request.eventIdOrSlug);
        typeId = await writes.insertTicketType(event.id, set);
      } else {
        const found = await writes.lockTicketType(request.id, ctx.organisationId);
        if (!found) throw notFound('ticket type');
        typeId = found.id;
        event = await this.lockedEvent(client, ctx, found.event_id);
        await writes.updateTicketType(typeId, set);
      }
      if (fields.poolIds.length > 0) {
        const poolIds = fields.poolIds.map(String);
        if ((await writes.countEventPools(event.id, poolIds)) !== new Set(poolIds).size) {
          throw invalid('pool_ids', "pool_ids must be pools of the ticket type's event.");
        }
        await writes.setTicketTypePools(typeId, poolIds);
      }
      const repository = new CatalogRepository(client);
      await repository.touchEvent(event.id);
      const views = await this.catalog.ticketTypeViews(event, repository);
      return views.find((view) => view.id === BigInt(typeId))!;
    });
    return this.committed(ctx, view.eventId, view);
  }
}
