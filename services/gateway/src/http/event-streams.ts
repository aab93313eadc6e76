/**
 * `GET /webhook_events/stream` (beta, scope `webhooks:manage`): the
 * organisation's events as Server-Sent Events, as they are stored, for
 * `partnerctl listen` and anyone who wants deliveries without a public
 * receiver. It rides the event feed (`GET /webhook_events`): a stream asks
 * the webhooks service for the events after the last one it sent, so it
 * sees every replica's events, in the feed's order, and a client that
 * reconnects with `Last-Event-ID` resumes where it stopped (D290-D293).
 *
 * Each event is one SSE message: `id:` the event id, `data:` the event
 * body exactly as a webhook delivery carries it. A comment line every
 * `heartbeatMs` keeps proxies from closing a quiet stream; a stream ends
 * after `maxAgeMs` (clients reconnect with `Last-Event-ID`) and at
 * shutdown, so no connection outlives a rollout.
 */
import type { Request, Response } from 'express';
import { ApiError, type Logger, type RequestContext } from '@partner-api/shared';
import type { StreamSeat, StreamSeats } from '../storage/stream-seats';

export interface StreamedEvent {
  id: string;
  /** The event body as JSON text. */
  body: string;
}

/** Events after `since` (an event id, or a time for a fresh stream), oldest first, and whether more are waiting. */
export type ReadEvents = (ctx: RequestContext, since: string, type: string | undefined) => Promise<{ events: StreamedEvent[]; hasMore: boolean }>;

export interface EventStreamOptions {
  pollMs: number;
  heartbeatMs: number;
  maxAgeMs: number;
  /** Open streams one organisation may hold across every gateway process (StreamSeats, D370). */
  perOrganisation: number;
}

const EVENT_ID = /^evt_[A-Za-z0-9]{1,64}$/;

export class EventStreams {
  private readonly open = new Map<Response, number>();
  private closing = false;

  constructor(
    private readonly readEvents: ReadEvents,
    private readonly seats: StreamSeats,
    private readonly logger: Logger,
    private readonly options: EventStreamOptions,
  ) {}

  /**
   * Serves one stream until the client leaves, it reaches its age, or the
   * process shuts down. Everything that can be refused (the limit, a bad
   * `Last-Event-ID`, an unknown type) is refused before the stream starts,
   * as an ordinary error envelope.
   */
  async serve(req: Request, res: Response, ctx: RequestContext, type: string | undefined): Promise<void> {
    const resumeFrom = req.get('Last-Event-ID');
    if (resumeFrom !== undefined && !EVENT_ID.test(resumeFrom)) {
      throw new ApiError('parameter_invalid', 'Last-Event-ID must be an event id (evt_…).', 'Last-Event-ID');
    }
    const seat = await this.seats.take(ctx.organisationId, this.options.perOrganisation);
    if (!seat) {
      throw new ApiError('rate_limited', `At most ${this.options.perOrganisation} event streams may be open at once; close one first.`);
    }
    try {
      await this.stream(res, ctx, type, resumeFrom, seat);
    } finally {
      // Given back at once, so the next stream need not wait for the lease to run out.
      await seat.release().catch((error: unknown) => this.logger.warn({ err: error, organisationId: ctx.organisationId }, 'event stream: giving its seat back failed; it lapses with its lease'));
    }
  }

  private async stream(res: Response, ctx: RequestContext, type: string | undefined, resumeFrom: string | undefined, seat: StreamSeat): Promise<void> {
    // The first read happens before the headers go, so its refusals are answered as errors.
    // Event times have whole seconds: a fresh stream starts at the second before the one it opens in,
    // so an event of the opening second is never missed (one a moment older may come too).
    let since = resumeFrom ?? new Date(Math.floor(Date.now() / 1000) * 1000 - 1000).toISOString();
    let first: Awaited<ReturnType<ReadEvents>> | undefined = await this.readEvents(ctx, since, type);

    this.open.set(res, ctx.organisationId);
    res.status(200).set({
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Accel-Buffering': 'no',
    });
    res.flushHeaders();
    res.write(`retry: ${this.options.pollMs}\n\n`);

    const started = Date.now();
    let lastWrite = started;
    let lastRenewal = started;
    let gone = false;
    res.once('close', () => {
      gone = true;
      this.open.delete(res);
    });
    try {
      while (!gone && !this.closing && Date.now() - started < this.options.maxAgeMs) {
        const page = first ?? (await this.readSafely(ctx, since, type));
        first = undefined;
        for (const event of page?.events ?? []) {
          res.write(`id: ${event.id}\ndata: ${event.body}\n\n`);
          since = event.id;
          lastWrite = Date.now();
        }
        if (page?.hasMore) continue;
        if (Date.now() - lastWrite >= this.options.heartbeatMs) {
          res.write(': keep-alive\n\n');
          lastWrite = Date.now();
        }
        if (Date.now() - lastRenewal >= this.seats.renewEveryMs) {
          lastRenewal = Date.now();
          await seat.renew().catch((error: unknown) => this.logger.warn({ err: error, organisationId: ctx.organisationId }, 'event stream: renewing its seat failed; retrying'));
        }
        await new Promise((resolve) => setTimeout(resolve, this.options.pollMs));
      }
    } finally {
      this.open.delete(res);
      if (!gone) res.end();
    }
  }

  /** Ends every stream (at shutdown); their clients reconnect elsewhere with `Last-Event-ID`. */
  closeAll(): void {
    this.closing = true;
    for (const res of this.open.keys()) res.end();
    this.open.clear();
  }

  /** A failed read is retried on the next poll: the stream stays open through a backend's restart. */
  private async readSafely(ctx: RequestContext, since: string, type: string | undefined) {
    try {
      return await this.readEvents(ctx, since, type);
    } catch (error) {
      this.logger.warn({ err: error, organisationId: ctx.organisationId }, 'event stream: reading the feed failed; retrying');
      return undefined;
    }
  }
}
