/**
 * `GET /webhook_events/stream`: authenticated, rate-limited and
 * scope-checked like every operation, but kept out of the OpenAPI
 * document: an endless response is no operation a generated client or a
 * contract test can call (D291). The stream itself is in ../event-streams.
 */
import type { Express } from 'express';
import { EVENT_TYPES, type RequestContext } from '@partner-api/shared';
import type { StoredKey } from '../../domain/api-keys';
import { z } from '../../openapi/zod';
import type { EventStreams, ReadEvents } from '../event-streams';
import { callerContext } from '../middleware/authenticate';
import { assertStorableQuery } from '../middleware/request-text';
import { checkScopes } from '../operation';
import type { ServiceClients } from '../service-clients';
import { validate } from '../validation';

export const EVENT_STREAM_PATH = '/webhook_events/stream';

const StreamQuery = z.strictObject(
  { type: z.enum(EVENT_TYPES, { error: `type must be one of ${EVENT_TYPES.join(', ')}.` }).optional() },
  { error: 'The only query parameter is type.' },
);

/** A feed page as the stream sends it: one body per event, in the feed's order. */
export function feedReader(clients: ServiceClients): ReadEvents {
  return async (ctx: RequestContext, since: string, type: string | undefined) => {
    const page = await clients.webhooks.listEvents({ since, type, page: { limit: 100 } }, ctx);
    const events = JSON.parse(Buffer.from(page.dataJson).toString('utf8')) as { id: string }[];
    return { events: events.map((event) => ({ id: event.id, body: JSON.stringify(event) })), hasMore: page.pageInfo?.hasMore ?? false };
  };
}

export function mountEventStream(app: Express, streams: EventStreams): void {
  app.get(EVENT_STREAM_PATH, async (req, res) => {
    checkScopes(res.locals.key as StoredKey, ['webhooks:manage']);
    assertStorableQuery(req.query as Record<string, unknown>);
    const query = validate(StreamQuery, req.query);
    await streams.serve(req, res, callerContext(res), query.type);
  });
}
