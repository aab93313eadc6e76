/**
 * Webhook endpoints as Svix's app portal shows them: create one (its
 * signing secret shown once), health against the
 * disable rules, the delivery log per endpoint and per event with every
 * attempt's outcome, resend one delivery, recover everything failed or
 * missed since a time, rotate the signing secret, re-enable.
 */
import { Router, type Request, type Response } from 'express';
import { EVENT_TYPES } from '@partner-api/shared';
import { DashboardError, notFound } from '../../domain/dashboard-error';
import type { DashboardDeps } from '../deps';
import { asRefusal } from '../refusals';
import { requireMember, serviceContext, type SignedInLocals } from '../signed-in';
import { render, type PageOptions } from '../views';

type Form = Record<string, string | undefined>;
type CreateForm = Record<string, string | string[] | undefined>;

const MAX_URL = 2048;
const MAX_DESCRIPTION = 255;
const one = (value: string | string[] | undefined): string => (Array.isArray(value) ? (value[0] ?? '') : (value ?? '')).trim();
const many = (value: string | string[] | undefined): string[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

const LOG_PAGE = 50;
const STATUSES = ['pending', 'succeeded', 'failed', 'cancelled'] as const;

const endpointId = (value: unknown): bigint => {
  if (!/^\d{1,18}$/.test(String(value))) throw notFound('webhook endpoint');
  return BigInt(String(value));
};

/** `datetime-local` input (UTC, as the page says) to the ISO time the services take. */
function sinceFrom(value: string | undefined): string {
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})(:\d{2})?$/.exec((value ?? '').trim());
  const at = match ? new Date(`${match[1]}T${match[2]}${match[3] ?? ':00'}Z`) : undefined;
  if (!at || Number.isNaN(at.getTime())) throw new DashboardError(400, 'Enter the time to recover from as date and time (UTC).', 'since');
  return at.toISOString().replace('.000Z', 'Z');
}

/** The recover form's suggestion: an hour before the endpoint was disabled, or a day ago. */
const suggestedSince = (disabledAt: string | undefined): string =>
  new Date((disabledAt ? Date.parse(disabledAt) : Date.now() - 23 * 3_600_000) - 3_600_000).toISOString().slice(0, 16);

export function webhookRoutes(deps: DashboardDeps): Router {
  const router = Router();

  async function endpointPage(req: Request, res: Response, signedIn: SignedInLocals, options: Omit<PageOptions, 'title'> = {}): Promise<void> {
    const id = endpointId(req.params.id);
    const ctx = serviceContext(signedIn);
    const status = STATUSES.find((candidate) => candidate === req.query.status);
    const after = typeof req.query.after === 'string' ? req.query.after : '';
    const [endpoint, health, log] = await Promise.all([
      deps.webhooks.getEndpoint({ id }, ctx),
      deps.webhooks.getEndpointHealth({ id }, ctx),
      deps.webhooks.listDeliveryAttempts({ endpointId: id, status, page: { limit: LOG_PAGE, after } }, ctx),
    ]);
    render(req, res, 'webhook', {
      title: endpoint.url,
      endpoint,
      health,
      attempts: log.data,
      nextAfter: log.pageInfo?.hasMore ? log.pageInfo.nextAfter : undefined,
      statusFilter: status,
      statuses: STATUSES,
      since: suggestedSince(endpoint.disabledAt),
      ...options,
    });
  }

  /**
   * Runs a form's action (which audit-logs it) and sends the browser back to
   * the endpoint's page with the outcome in the address (`?done=`), so that
   * reloading the page does not send the form again. A refusal shows the
   * page with the form's error. `shown` instead renders the outcome in
   * place: a new signing secret is shown once and must not travel in an
   * address (history, logs).
   */
  async function act(
    req: Request,
    res: Response,
    work: (signedIn: SignedInLocals, id: bigint) => Promise<{ done: Record<string, string> } | { shown: { flash: string; secret?: string | undefined } }>,
  ): Promise<void> {
    const signedIn = requireMember(res, 'webhooks');
    const id = endpointId(req.params.id);
    let outcome;
    try {
      outcome = await work(signedIn, id).catch((error: unknown) => {
        throw asRefusal(error);
      });
    } catch (error) {
      if (!(error instanceof DashboardError)) throw error;
      return endpointPage(req, res, signedIn, { status: error.status, error: error.message, errorField: error.field });
    }
    if ('shown' in outcome) return endpointPage(req, res, signedIn, outcome.shown);
    res.redirect(303, `/webhooks/${id}?${new URLSearchParams(outcome.done).toString()}`);
  }

  async function listPage(req: Request, res: Response, signedIn: SignedInLocals, options: Omit<PageOptions, 'title'> = {}): Promise<void> {
    const { data } = await deps.webhooks.listEndpoints({}, serviceContext(signedIn));
    render(req, res, 'webhooks', { title: 'Webhooks', endpoints: data, eventTypes: EVENT_TYPES, form: {}, ...options });
  }

  router.get('/webhooks', async (req, res) => listPage(req, res, requireMember(res, 'webhooks')));

  /**
   * A new endpoint of the mode the member is viewing, through the webhooks
   * service's CreateEndpoint (its rules: HTTPS, no private addresses, known
   * event types). Its signing secret is shown once, on the page answering the form.
   */
  router.post('/webhooks', async (req, res) => {
    const signedIn = requireMember(res, 'webhooks');
    const form = req.body as CreateForm;
    const typed = { url: one(form.url), description: one(form.description), eventTypes: many(form.event_types) };
    try {
      if (!typed.url || typed.url.length > MAX_URL) throw new DashboardError(400, `Enter the HTTPS address to send events to (at most ${MAX_URL} characters).`, 'url');
      if (typed.description.length > MAX_DESCRIPTION) throw new DashboardError(400, `The description is at most ${MAX_DESCRIPTION} characters.`, 'description');
      // None ticked: every event, including types added later (the API's default).
      const eventTypes = typed.eventTypes.length ? typed.eventTypes : ['*'];
      const endpoint = await deps.webhooks
        .createEndpoint({ url: typed.url, eventTypes, description: typed.description || undefined, mode: signedIn.mode }, serviceContext(signedIn))
        .catch((error: unknown) => {
          throw asRefusal(error);
        });
      await deps.audit.record(signedIn.actor, 'webhook.created', `webhook endpoint ${endpoint.id}`, { url: endpoint.url, event_types: endpoint.eventTypes, mode: endpoint.mode });
      await listPage(req, res, signedIn, { status: 201, created: { id: String(endpoint.id), url: endpoint.url, secret: endpoint.secret } });
    } catch (error) {
      if (!(error instanceof DashboardError)) throw error;
      await listPage(req, res, signedIn, { status: error.status, error: error.message, errorField: error.field, form: typed });
    }
  });

  router.get('/webhooks/:id', async (req, res) => endpointPage(req, res, requireMember(res, 'webhooks')));

  router.get('/webhooks/events/:eventId', async (req, res) => {
    const signedIn = requireMember(res, 'webhooks');
    const eventId = String(req.params.eventId);
    if (!/^evt_[A-Za-z0-9]{1,64}$/.test(eventId)) throw notFound('event');
    const { data } = await deps.webhooks.listDeliveryAttempts({ eventId, page: { limit: 100, after: '' } }, serviceContext(signedIn));
    render(req, res, 'webhook-event', { title: `Event ${eventId}`, eventId, attempts: data });
  });

  router.post('/webhooks/:id/deliveries/:deliveryId/resend', (req, res) =>
    act(req, res, async (signedIn, id) => {
      if (!/^\d{1,18}$/.test(String(req.params.deliveryId))) throw notFound('delivery');
      const resent = await deps.webhooks.resendDelivery({ endpointId: id, deliveryId: BigInt(String(req.params.deliveryId)) }, serviceContext(signedIn));
      const delivery = resent.delivery!;
      await deps.audit.record(signedIn.actor, 'webhook.delivery_resent', `webhook endpoint ${id}`, { delivery: String(req.params.deliveryId), event: delivery.eventId, new_delivery: String(delivery.id), attempt: delivery.attempt });
      return { done: { done: 'delivery_resent', event: delivery.eventId, attempt: String(delivery.attempt) } };
    }),
  );

  router.post('/webhooks/:id/recover', (req, res) =>
    act(req, res, async (signedIn, id) => {
      const form = req.body as Form;
      const since = sinceFrom(form.since);
      if (form.confirm !== 'yes') throw new DashboardError(400, 'Tick the box to confirm the recovery.', 'confirm');
      const replay = await deps.webhooks.recoverEndpoint({ endpointId: id, since }, serviceContext(signedIn));
      await deps.audit.record(signedIn.actor, 'webhook.recovered', `webhook endpoint ${id}`, { since, queued: replay.queued, replay: String(replay.id) });
      return { done: { done: 'endpoint_recovered', queued: String(replay.queued), since } };
    }),
  );

  router.post('/webhooks/:id/enable', (req, res) =>
    act(req, res, async (signedIn, id) => {
      if ((req.body as Form).confirm !== 'yes') throw new DashboardError(400, 'Tick the box to confirm.', 'confirm');
      await deps.webhooks.updateEndpoint({ id, enabled: true, eventTypes: [], setEventTypes: false }, serviceContext(signedIn));
      await deps.audit.record(signedIn.actor, 'webhook.enabled', `webhook endpoint ${id}`);
      return { done: { done: 'endpoint_enabled' } };
    }),
  );

  router.post('/webhooks/:id/rotate-secret', (req, res) =>
    act(req, res, async (signedIn, id) => {
      if ((req.body as Form).confirm !== 'yes') throw new DashboardError(400, 'Tick the box to confirm the rotation.', 'confirm');
      const rotated = await deps.webhooks.rotateSecret({ id }, serviceContext(signedIn));
      await deps.audit.record(signedIn.actor, 'webhook.secret_rotated', `webhook endpoint ${id}`, { secret_hint: rotated.secretHint });
      return { shown: { flash: 'A new signing secret is in use; the old one keeps signing beside it for 24 hours.', secret: rotated.secret } };
    }),
  );

  return router;
}
