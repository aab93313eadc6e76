/** The organiser's side of the waiting room (`partnerctl waiting-room`, the dashboard): settings and counts per event. */
import type { MessageInitShape } from '@bufbuild/protobuf';
import { ApiError, type gen, type RequestContext } from '@partner-api/shared';
import type { RoomKey, RoomStats } from '../storage/waiting-room-store';
import type { InventoryClient } from './fulfilment';
import { parseSettings, type WaitingRoom } from './waiting-room';

type WaitingRoomInit = MessageInitShape<typeof gen.orders.WaitingRoomSchema>;

const view = (room: RoomKey, stats: RoomStats): WaitingRoomInit => ({
  object: 'waiting_room',
  eventId: BigInt(room.eventId),
  enabled: stats.settings?.enabled ?? false,
  opensAt: stats.settings ? new Date(stats.settings.opensAtMs).toISOString() : '',
  rate: !stats.settings ? '' : stats.settings.rate === 0 ? 'automatic' : String(stats.settings.rate),
  currentRate: stats.rate,
  joined: BigInt(stats.joined),
  waiting: BigInt(stats.waiting),
  admitted: BigInt(stats.admitted),
  passesUsed: BigInt(stats.passesUsed),
});

export class WaitingRoomAdmin {
  constructor(
    private readonly room: WaitingRoom,
    private readonly inventory: InventoryClient,
  ) {}

  /** The organisation's own event, by id or slug: one event has one queue, whichever the page's address names. */
  private async roomOf(ctx: RequestContext, eventIdOrSlug: string): Promise<RoomKey> {
    if (!eventIdOrSlug.trim()) throw new ApiError('parameter_missing', 'event is required.', 'event_id_or_slug');
    const event = await this.inventory.getEvent({ idOrSlug: eventIdOrSlug }, ctx);
    return { organisationId: ctx.organisationId, eventId: event.id.toString() };
  }

  async set(ctx: RequestContext, request: { eventIdOrSlug: string; enabled: boolean; opensAt: string; rate: string }): Promise<WaitingRoomInit> {
    const settings = parseSettings({ enabled: request.enabled, opensAt: request.opensAt, rate: request.rate || 'automatic' });
    const room = await this.roomOf(ctx, request.eventIdOrSlug);
    await this.room.configure(room, settings);
    return view(room, await this.room.stats(room));
  }

  async get(ctx: RequestContext, eventIdOrSlug: string): Promise<WaitingRoomInit> {
    const room = await this.roomOf(ctx, eventIdOrSlug);
    return view(room, await this.room.stats(room));
  }
}
