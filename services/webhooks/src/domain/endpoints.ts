/**
 * Managing webhook endpoints through the API. A live key manages every
 * endpoint of its organisation; a test key only its test endpoints (live
 * ones do not exist for it), so a leaked test key can neither read nor
 * redirect live deliveries. Receiver URLs are checked by the receiver
 * policy when saved (and again at every delivery). Pausing or disabling an
 * endpoint cancels the deliveries it has scheduled; re-enabling starts
 * clean (missed events are backfilled with `updated_since`, or replayed:
 * `replays.ts`).
 */
import type { MessageShape } from '@bufbuild/protobuf';
import { ApiError, type gen, inTransaction, isDryRun, newEndpointSecret, notFound, type Pool, type RequestContext } from '@partner-api/shared';
import type { DeliveryRepository } from '../storage/delivery-repository';
import type { EndpointRepository, EndpointRow } from '../storage/endpoint-repository';
import { endpointView, type EndpointInit } from './endpoint-view';
import { ALL_EVENTS, normaliseEventTypes } from './event-types';
import { MAX_URL_LENGTH, ReceiverRefused, type ReceiverPolicy } from './receiver-policy';

type CreateRequest = MessageShape<typeof gen.webhooks.CreateEndpointRequestSchema>;
type UpdateRequest = MessageShape<typeof gen.webhooks.UpdateEndpointRequestSchema>;

/** Endpoints per organisation: the list is a single page, so it must stay short. */
export const MAX_ENDPOINTS = 20;
/** How long a rotated secret keeps signing beside the new one. */
export const SECRET_OVERLAP_MS = 24 * 3_600_000;

const MAX_DESCRIPTION_LENGTH = 255;

export class WebhookEndpoints {
  constructor(
    private readonly pool: Pool,
    private readonly endpoints: EndpointRepository,
    private readonly deliveries: DeliveryRepository,
    private readonly policy: ReceiverPolicy,
  ) {}

  async list(ctx: RequestContext): Promise<EndpointInit[]> {
    const rows = await this.endpoints.list(ctx.organisationId, visibleModes(ctx));
    return rows.map((row) => endpointView(row));
  }

  async get(ctx: RequestContext, id: bigint): Promise<EndpointInit> {
    return endpointView(await this.visible(ctx, id));
  }

  async create(ctx: RequestContext, request: CreateRequest): Promise<EndpointInit> {
    const mode = request.mode || (isDryRun(ctx) ? 'test' : 'live');
    if (mode !== 'live' && mode !== 'test') throw new ApiError('parameter_invalid', 'mode must be live or test.', 'mode');
    if (mode === 'live' && isDryRun(ctx)) throw new ApiError('parameter_invalid', 'A test key can create only test endpoints (mode test).', 'mode');
    const url = await this.checkUrl(request.url);
    const description = checkDescription(request.description);
    const eventTypes = normaliseEventTypes(request.eventTypes.length > 0 ? request.eventTypes : [ALL_EVENTS]);

    const row = await inTransaction(this.pool, async (client) => {
      await this.endpoints.lockOrganisation(client, ctx.organisationId);
      if ((await this.endpoints.count(ctx.organisationId, client)) >= MAX_ENDPOINTS) {
        throw new ApiError('parameter_invalid', `An organisation can have at most ${MAX_ENDPOINTS} webhook endpoints; delete one first.`, 'url');
      }
      return this.endpoints.insert(client, { organisationId: ctx.organisationId, url, description, eventTypes, mode, secret: newEndpointSecret() });
    });
    return endpointView(row, { withSecret: true });
  }

  async update(ctx: RequestContext, request: UpdateRequest): Promise<EndpointInit> {
    await this.visible(ctx, request.id);
    const changes = {
      url: request.url === undefined ? undefined : await this.checkUrl(request.url),
      description: request.description === undefined ? undefined : checkDescription(request.description),
      eventTypes: request.setEventTypes ? normaliseEventTypes(request.eventTypes) : undefined,
      enabled: request.enabled,
    };
    const row = await inTransaction(this.pool, async (client) => {
      const updated = await this.endpoints.update(client, ctx.organisationId, request.id, changes);
      if (updated && !updated.enabled) await this.deliveries.cancelScheduled(client, updated.id);
      return updated;
    });
    if (!row) throw notFound('webhook endpoint');
    return endpointView(row);
  }

  async delete(ctx: RequestContext, id: bigint): Promise<void> {
    await this.visible(ctx, id);
    // Its deliveries go with it (ON DELETE CASCADE): nothing more is sent.
    if (!(await this.endpoints.delete(ctx.organisationId, id))) throw notFound('webhook endpoint');
  }

  /** Operator tool: a new secret, returned once; the old one signs beside it for 24 hours. */
  async rotateSecret(ctx: RequestContext, id: bigint, now = new Date()): Promise<EndpointInit> {
    await this.visible(ctx, id);
    const row = await this.endpoints.rotateSecret(ctx.organisationId, id, newEndpointSecret(), new Date(now.getTime() + SECRET_OVERLAP_MS));
    if (!row) throw notFound('webhook endpoint');
    return endpointView(row, { withSecret: true });
  }

  /** The endpoint if the caller's key may see it; another organisation's, or a live one for a test key, is missing. */
  async visible(ctx: RequestContext, id: bigint): Promise<EndpointRow> {
    const row = await this.endpoints.find(ctx.organisationId, id);
    if (!row || !visibleModes(ctx).includes(row.mode)) throw notFound('webhook endpoint');
    return row;
  }

  private async checkUrl(raw: string): Promise<string> {
    if (raw.length === 0) throw new ApiError('parameter_missing', 'url is required.', 'url');
    if (raw.length > MAX_URL_LENGTH) throw new ApiError('parameter_invalid', `url is at most ${MAX_URL_LENGTH} characters.`, 'url');
    try {
      await this.policy.checkForRegistration(raw);
      return raw; // kept as the partner wrote it
    } catch (error) {
      if (error instanceof ReceiverRefused) throw new ApiError('parameter_invalid', error.message, 'url');
      throw error;
    }
  }
}

/** The endpoint modes a caller's key may see: a test key only test endpoints. */
export const visibleModes = (ctx: RequestContext): readonly string[] => (isDryRun(ctx) ? ['test'] : ['live', 'test']);

function checkDescription(description: string | undefined): string | null {
  if (description === undefined || description === '') return null;
  if (description.length > MAX_DESCRIPTION_LENGTH) throw new ApiError('parameter_invalid', `description is at most ${MAX_DESCRIPTION_LENGTH} characters.`, 'description');
  return description;
}
