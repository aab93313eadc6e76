/**
 * The waiting room in front of each event's sale pages, through the
 * orders service (GetWaitingRoom, SetWaitingRoom): the upcoming events
 * with their queues as they stand (waiting, admitted, passes used, the
 * rate in force), and per event a form to turn the queue on or off, set
 * when it opens (on the event's clock) and its rate. Events and their
 * queues have no test copy: the pages are the same in either mode, and
 * changes are made in live mode only, as the orders pages' are.
 */
import type { MessageShape } from '@bufbuild/protobuf';
import { Router, type Request, type Response } from 'express';
import type { gen, RequestContext } from '@partner-api/shared';
import { DashboardError } from '../../domain/dashboard-error';
import { can } from '../../domain/roles';
import { localFieldValue, waitingRoomChange, type WaitingRoomChange, type WaitingRoomFields } from '../../domain/waiting-room-form';
import type { DashboardDeps } from '../deps';
import { organisationEvent } from '../organisation-event';
import { asRefusal } from '../refusals';
import { requireMember, serviceContext, type SignedInLocals } from '../signed-in';
import { render, type PageOptions } from '../views';

type Event = MessageShape<typeof gen.inventory.EventSchema>;
type Room = MessageShape<typeof gen.orders.WaitingRoomSchema>;

const EVENTS_PER_PAGE = 25;
/** The form's field names for orders' parameters. */
const FIELDS: Record<string, string> = { opens_at: 'opens_at', rate: 'rate', event_id_or_slug: 'event' };

/** What the form shows: the room's settings, or for a room never set up, off with the event's on-sale time as a start. */
function formOf(room: Room | undefined, event: Event): WaitingRoomFields {
  const fixed = Boolean(room?.rate) && room!.rate !== 'automatic';
  return {
    enabled: room?.enabled ? 'on' : 'off',
    opens_at: localFieldValue(room?.opensAt || event.onSaleAt, event.timezone),
    rate_kind: fixed ? 'fixed' : 'automatic',
    rate: fixed ? room!.rate : '',
  };
}

export function waitingRoomRoutes(deps: DashboardDeps): Router {
  const router = Router();

  const eventOf = (ctx: RequestContext, id: string): Promise<Event> => organisationEvent(deps.inventory, ctx, id);

  /** The room of an event, or undefined when orders cannot say: the page still shows. */
  const roomOf = (ctx: RequestContext, event: Event): Promise<Room | undefined> => deps.orders.getWaitingRoom({ eventIdOrSlug: String(event.id) }, ctx).catch(() => undefined);

  router.get('/waiting-room', async (req, res) => {
    const signedIn = requireMember(res, 'orders.view');
    const ctx = serviceContext(signedIn);
    const after = typeof req.query.after === 'string' ? req.query.after : '';
    let page: { data: Event[]; pageInfo?: { hasMore: boolean; nextAfter: string } } = { data: [] };
    let error: string | undefined;
    try {
      page = await deps.inventory.listEvents({ status: 'all', time: 'upcoming', page: { limit: EVENTS_PER_PAGE, after } }, ctx);
    } catch (caught) {
      const refusal = asRefusal(caught);
      if (!(refusal instanceof DashboardError)) throw refusal;
      error = after ? 'That page link no longer works. Start again from the first page.' : refusal.message;
    }
    const rooms = await Promise.all(page.data.map((event) => roomOf(ctx, event)));
    render(req, res, 'waiting-rooms', {
      title: 'Waiting room',
      rows: page.data.map((event, index) => ({ event, room: rooms[index] })),
      nextHref: page.pageInfo?.hasMore ? `/waiting-room?after=${encodeURIComponent(page.pageInfo.nextAfter)}` : undefined,
      firstHref: after ? '/waiting-room' : undefined,
      ...(error ? { status: 400, error } : {}),
    });
  });

  async function eventPage(req: Request, res: Response, signedIn: SignedInLocals, event: Event, options: Omit<PageOptions, 'title'> & { form?: WaitingRoomFields } = {}): Promise<void> {
    const room = await roomOf(serviceContext(signedIn), event);
    render(req, res, 'waiting-room', {
      title: `Waiting room · ${event.title}`,
      event,
      room,
      canChange: can(signedIn.member.role, 'orders.change') && signedIn.mode === 'live',
      ...options,
      form: options.form ?? formOf(room, event),
    });
  }

  router.get('/waiting-room/:eventId', async (req, res) => {
    const signedIn = requireMember(res, 'orders.view');
    await eventPage(req, res, signedIn, await eventOf(serviceContext(signedIn), String(req.params.eventId)));
  });

  router.post('/waiting-room/:eventId', async (req, res) => {
    const signedIn = requireMember(res, 'orders.change');
    const ctx = serviceContext(signedIn);
    const event = await eventOf(ctx, String(req.params.eventId));
    const form = req.body as WaitingRoomFields;
    let change: WaitingRoomChange;
    let saved: Room;
    try {
      if (signedIn.mode !== 'live') throw new DashboardError(409, 'You are viewing test data. Switch to live data to change the waiting room: it queues your real sale pages.');
      change = waitingRoomChange(form, event.timezone);
      saved = await deps.orders.setWaitingRoom({ eventIdOrSlug: String(event.id), ...change }, ctx).catch((error: unknown) => {
        throw asRefusal(error, FIELDS);
      });
    } catch (error) {
      if (!(error instanceof DashboardError)) throw error;
      return eventPage(req, res, signedIn, event, { status: error.status, error: error.message, errorField: error.field, form });
    }
    await deps.audit.record(signedIn.actor, 'waiting_room.set', `event ${event.id}`, { enabled: saved.enabled, opens_at: saved.opensAt, rate: saved.rate });
    res.redirect(303, `/waiting-room/${event.id}?done=waiting_room_saved`);
  });

  return router;
}
