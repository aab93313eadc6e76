/**
 * The waiting room in front of the sale pages `/<channel>/<org>/events/<event>`
 * (web, storefront, embed): mounted before the channel checkout, it lets a
 * request through when the event's queue is off or the browser holds a
 * valid pass for the event, and otherwise answers the waiting page (or a
 * clear refusal). A page load without a pass costs one Redis round trip;
 * one with a valid pass none (the pass is checked by its signature).
 */
import { randomUUID } from 'node:crypto';
import cookieParser from 'cookie-parser';
import express, { type CookieOptions, type NextFunction, type Request, type Response } from 'express';
import { ApiError, Counter, type Logger, operatorContext, type Registry } from '@partner-api/shared';
import type { ChannelOrigins } from '../domain/channel-origins';
import { type InventoryClient } from '../domain/fulfilment';
import { embeddingOrigin } from '../domain/sales-channels';
import { isVisitorId, newVisitorId, type Visit, type WaitingRoom } from '../domain/waiting-room';
import type { PassCheck } from '../domain/waiting-room-passes';
import type { RoomKey } from '../storage/waiting-room-store';
import { allowFramingBy } from './framing';
import { messagePage, type EventSummary } from './pages';
import { refusedPassPage, turnLapsedPage, WAITING_ROOM_SCRIPT, waitingPage, type WaitingUrls } from './waiting-room-pages';

export const VISITOR_COOKIE = 'waiting_room_visitor';
/** The embedding site an embedded waiting page was shown for: the sale page it leads to has no Referer of its own. */
export const EMBED_ORIGIN_COOKIE = 'waiting_room_embed_origin';
export const passCookie = (room: RoomKey) => `waiting_room_pass_${room.organisationId}_${room.eventId}`;

/** How long an event's id, title and start stay cached per process: a queued page load asks inventory nothing. */
const EVENT_CACHE_MS = 30_000;
const EVENT_CACHE_LIMIT = 10_000;

export interface WaitingRoomRouteDeps {
  room: WaitingRoom;
  inventory: InventoryClient;
  origins: ChannelOrigins;
  /** Cookies carry Secure (the hosted pages are served over https). */
  secureCookies: boolean;
  metrics: Registry;
  logger: Logger;
}

interface CachedEvent {
  room: RoomKey;
  summary: EventSummary;
  at: number;
}

const PASS_REFUSALS: Record<Exclude<PassCheck, 'valid' | 'missing'>, { title: string; reason: string }> = {
  forged: { title: 'This pass is not valid', reason: 'The pass in this browser was not issued by us. Wait for your turn in the queue.' },
  expired: { title: 'Your pass has expired', reason: 'Passes last a limited time after your turn comes. Join the queue again.' },
  other_event: { title: 'This pass is for another event', reason: 'A pass opens only the event it was issued for. Wait for your turn in this event\'s queue.' },
  other_browser: { title: 'This pass belongs to another browser', reason: 'A pass works only in the browser that waited for it. Wait for your turn in the queue.' },
};

export function waitingRoomRouter(deps: WaitingRoomRouteDeps): express.Router {
  const router = express.Router();
  router.use(cookieParser());
  const pageLoads = new Counter({
    name: 'orders_waiting_room_visits_total',
    help: 'Sale page loads and status polls met by a waiting room, by outcome: open (queue off), pass (a valid pass), before_opening, waiting, admitted (a pass issued), turn_lapsed, address_limited, unavailable (Redis unusable)',
    labelNames: ['outcome'],
    registers: [deps.metrics],
  });
  const passRefusals = new Counter({
    name: 'orders_waiting_room_passes_refused_total',
    help: 'Passes refused while a queue was on, by reason: forged, expired, other_event, other_browser, missing (a sale form sent without one)',
    labelNames: ['reason'],
    registers: [deps.metrics],
  });
  const passesUsed = new Counter({ name: 'orders_waiting_room_passes_used_total', help: 'Passes used for the first time (a sale form sent with one)', registers: [deps.metrics] });

  const events = new Map<string, CachedEvent>();

  async function eventOf(req: Request): Promise<CachedEvent | undefined> {
    const organisation = String(req.params.organisation);
    if (!/^[1-9][0-9]{0,15}$/.test(organisation)) return undefined;
    const cacheKey = `${organisation}/${String(req.params.event)}`;
    const cached = events.get(cacheKey);
    if (cached && Date.now() - cached.at < EVENT_CACHE_MS) return cached;
    const event = await deps.inventory.getEvent({ idOrSlug: String(req.params.event) }, operatorContext(Number(organisation), randomUUID())).catch((error: unknown) => {
      if (error instanceof ApiError && error.code === 'resource_missing') return undefined;
      throw error;
    });
    if (!event || event.status !== 'published') return undefined;
    const entry: CachedEvent = {
      room: { organisationId: Number(organisation), eventId: event.id.toString() },
      summary: { title: event.title, startsAt: event.startsAt, timezone: event.timezone, venue: event.venue?.name },
      at: Date.now(),
    };
    if (events.size >= EVENT_CACHE_LIMIT) events.clear();
    events.set(cacheKey, entry);
    return entry;
  }

  /**
   * A framed (embedded) page's cookies are third-party: browsers keep and send them only with SameSite=None, which
   * needs Secure, and, where third-party cookies are blocked, only Partitioned (CHIPS: kept per embedding site).
   */
  const cookieOptions = (maxAgeMs: number, channel: string): CookieOptions => {
    const framed = channel === 'embed' && deps.secureCookies;
    return { httpOnly: true, secure: deps.secureCookies, sameSite: framed ? 'none' : 'lax', ...(framed ? { partitioned: true } : {}), path: '/', maxAge: maxAgeMs };
  };

  /** Clears a pass with the attributes it was set with: in a frame a bare clear is refused, and the pass would stay. */
  function clearPass(res: Response, room: RoomKey, channel: string): void {
    const { maxAge: _setOnly, ...options } = cookieOptions(0, channel);
    res.clearCookie(passCookie(room), options);
  }

  function visitorOf(req: Request, res: Response, channel: string): string {
    const existing = (req.cookies as Record<string, unknown>)[VISITOR_COOKIE];
    if (isVisitorId(existing)) return existing;
    const visitor = newVisitorId();
    res.cookie(VISITOR_COOKIE, visitor, cookieOptions(2 * 86_400_000, channel));
    return visitor;
  }

  function urlsOf(req: Request): WaitingUrls {
    const page = `/${String(req.params.channel)}/${String(req.params.organisation)}/events/${String(req.params.event)}`;
    return { page, status: `${page}/queue`, rejoin: `${page}/queue/rejoin` };
  }

  /** An embedded page may be framed only by an allowed site; a page that cannot tell which answers as the channel checkout would. */
  async function frameFor(req: Request, res: Response, room: RoomKey): Promise<boolean> {
    if (String(req.params.channel) !== 'embed') return true;
    const fromCookie = (req.cookies as Record<string, unknown>)[EMBED_ORIGIN_COOKIE];
    const origin = embeddingOrigin(req.headers) ?? (typeof fromCookie === 'string' ? fromCookie : undefined);
    if (!origin || !(await deps.origins.allows(room.organisationId, origin))) return false;
    res.locals.embeddingOrigin = origin;
    res.cookie(EMBED_ORIGIN_COOKIE, origin, cookieOptions(86_400_000, 'embed'));
    allowFramingBy(res, origin);
    return true;
  }

  /** The waiting page polls this site (its script, from this site, the policy allows already). */
  function allowScript(res: Response): void {
    const policy = String(res.getHeader('Content-Security-Policy') ?? '');
    res.setHeader('Content-Security-Policy', policy.replace("default-src 'none'", "default-src 'none';connect-src 'self'"));
  }

  /**
   * Without Redis nobody can tell whether a queue is on, so a page without a
   * valid pass answers "try again" (D480): holds need Redis too, so no sale
   * is lost that could have been made, and a queue is never skipped.
   */
  async function visit(event: CachedEvent, visitor: string, req: Request): Promise<Visit | 'unavailable'> {
    try {
      const result = await deps.room.visit(event.room, visitor, req.ip ?? 'unknown');
      pageLoads.inc({ outcome: result.kind });
      return result;
    } catch (error) {
      deps.logger.warn({ err: error, room: `${event.room.organisationId}:${event.room.eventId}` }, 'waiting room unavailable');
      pageLoads.inc({ outcome: 'unavailable' });
      return 'unavailable';
    }
  }

  // Express 5 paths have no inline patterns: a regular expression names the channels. It captures nothing, so the
  // router decodes nothing (a bad percent-escape would fail there, before any handler): paramsOf reads the path.
  const channelPath = (suffix = '') => new RegExp(`^/(?:web|storefront|embed)/[^/]+/events/[^/]+${suffix}/?$`);

  /** The channel, organisation and event of the path; false when a part does not decode, which names no event. */
  function paramsOf(req: Request): boolean {
    const match = /^\/(web|storefront|embed)\/([^/]+)\/events\/([^/]+)/.exec(req.path)!;
    const organisation = decodedSegment(match[2]!);
    const event = decodedSegment(match[3]!);
    if (organisation === undefined || event === undefined) return false;
    req.params = { channel: match[1]!, organisation, event };
    return true;
  }

  router.get('/waiting-room.js', (_req, res) => {
    res.set('Cache-Control', 'public, max-age=300').type('application/javascript').send(WAITING_ROOM_SCRIPT);
  });

  /** The sale page and its form: through with a valid pass or while the queue is off; the queue's pages otherwise. */
  router.all(channelPath(), async (req: Request, res: Response, next: NextFunction) => {
    if (req.method !== 'GET' && req.method !== 'POST') return next();
    if (!paramsOf(req)) return next();
    const event = await eventOf(req);
    if (!event) return next();
    const channel = String(req.params.channel);
    const visitor = visitorOf(req, res, channel);
    const check = deps.room.checkPass(event.room, (req.cookies as Record<string, string | undefined>)[passCookie(event.room)], visitor);
    if (check === 'valid') {
      pageLoads.inc({ outcome: 'pass' });
      if (channel === 'embed') {
        const fromCookie = (req.cookies as Record<string, unknown>)[EMBED_ORIGIN_COOKIE];
        if (!embeddingOrigin(req.headers) && typeof fromCookie === 'string') res.locals.embeddingOrigin = fromCookie;
      }
      if (req.method === 'POST' && (await deps.room.markUsed(event.room, visitor).catch(() => false))) passesUsed.inc();
      return next();
    }
    const outcome = await visit(event, visitor, req);
    if (outcome !== 'unavailable' && outcome.kind === 'open') return next();
    if (!(await frameFor(req, res, event.room))) return next();
    const urls = urlsOf(req);
    if (outcome === 'unavailable') {
      return void res.status(503).set('Retry-After', '5').type('html').send(messagePage('The queue is busy', 'We could not check your place in the queue. Your place is kept: try again in a few seconds.'));
    }
    if (outcome.kind === 'admitted') {
      res.cookie(passCookie(event.room), outcome.pass, cookieOptions(outcome.expiresAt.getTime() - Date.now(), channel));
      // A form sent without a pass is not taken even when the turn just came: the page is shown first.
      if (req.method === 'GET') return next();
      return void res.redirect(303, urls.page);
    }
    if (check !== 'missing') {
      passRefusals.inc({ reason: check });
      clearPass(res, event.room, channel);
    } else if (req.method === 'POST') {
      passRefusals.inc({ reason: 'missing' });
    }
    if (outcome.kind === 'turn_lapsed') {
      const reason = check === 'expired' ? PASS_REFUSALS.expired.reason : 'You did not use your turn in time, so it went to the next person. You can join the back of the queue.';
      return void res.status(check === 'missing' ? 200 : 403).type('html').send(turnLapsedPage(event.summary, urls, reason));
    }
    if (outcome.kind === 'address_limited') {
      return void res.status(429).type('html').send(messagePage('Too many passes from your network', 'Your network has taken as many passes for this sale as we allow. Try again later.'));
    }
    if (check !== 'missing') {
      const refusal = PASS_REFUSALS[check];
      return void res.status(403).type('html').send(refusedPassPage(event.summary, urls, refusal.title, refusal.reason));
    }
    if (req.method === 'POST') {
      return void res.status(403).type('html').send(refusedPassPage(event.summary, urls, 'You need a pass for this sale', 'This sale has a queue: the tickets open to you when your turn comes.'));
    }
    allowScript(res);
    res.type('html').send(waitingPage(event.summary, outcome, urls));
  });

  /** The waiting page's poll: where the visitor stands, and their pass when their turn has come. */
  router.get(channelPath('/queue'), async (req: Request, res: Response, next: NextFunction) => {
    if (!paramsOf(req)) return next();
    const event = await eventOf(req);
    if (!event) return next();
    const visitor = (req.cookies as Record<string, unknown>)[VISITOR_COOKIE];
    if (!isVisitorId(visitor)) {
      return void res.status(400).json({ error: { type: 'invalid_request_error', code: 'parameter_missing', message: 'This browser has no place in the queue: open the sale page first.', param: VISITOR_COOKIE } });
    }
    const outcome = await visit(event, visitor, req);
    if (outcome === 'unavailable') return void res.status(503).set('Retry-After', '5').json({ state: 'unavailable', poll_after_ms: 5_000 });
    switch (outcome.kind) {
      case 'admitted':
        res.cookie(passCookie(event.room), outcome.pass, cookieOptions(outcome.expiresAt.getTime() - Date.now(), String(req.params.channel)));
        return void res.json({ state: 'admitted', pass_expires_at: outcome.expiresAt.toISOString() });
      case 'before_opening': {
        const opensInMs = outcome.opensAt.getTime() - Date.now();
        return void res.json({ state: 'before_opening', opens_in_ms: opensInMs, poll_after_ms: jitter(Math.min(30_000, Math.max(1_000, opensInMs / 2))) });
      }
      case 'waiting':
        // Further back polls less often: the front moves at the rate, so nobody misses their turn by more than a tenth of their wait.
        return void res.json({ state: 'waiting', position: outcome.position, wait_seconds: outcome.waitSeconds, poll_after_ms: jitter(Math.min(30_000, Math.max(2_000, outcome.waitSeconds * 100))) });
      default:
        return void res.json({ state: outcome.kind });
    }
  });

  /** A visitor whose turn passed joins the back. */
  router.post(channelPath('/queue/rejoin'), async (req: Request, res: Response, next: NextFunction) => {
    if (!paramsOf(req)) return next();
    const event = await eventOf(req);
    if (!event) return next();
    const visitor = visitorOf(req, res, String(req.params.channel));
    await deps.room.rejoin(event.room, visitor);
    clearPass(res, event.room, String(req.params.channel));
    res.redirect(303, urlsOf(req).page);
  });

  return router;
}

const decodedSegment = (segment: string): string | undefined => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
};

const jitter = (ms: number) => Math.round(ms * (0.8 + Math.random() * 0.4));
