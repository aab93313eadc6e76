/**
 * `createPartnerClient`: one typed method per operation of the API, on
 * openapi-fetch over the generated `paths`. Writes carry an idempotency key
 * (the caller's or a fresh one, kept across retries); lists are async
 * iterables over every page; a non-2xx answer throws `PartnerApiError`.
 */
import createClient from 'openapi-fetch';
import { PartnerApiError } from './errors';
import type { components, operations, paths } from './gen/api';
import { paginate, type ListPage } from './pagination';
import { retryingFetch, type FetchFunction } from './retrying-fetch';
import { resolveRetryOptions, type RetryOptions } from './retry-policy';

export interface PartnerClientOptions {
  /** `svc_live_…` or `svc_test_…`. */
  apiKey: string;
  /** The API's base address, e.g. `https://api.example.com`. */
  baseUrl: string;
  retries?: RetryOptions;
  /** Replaces the global fetch (a proxy agent, instrumentation). */
  fetch?: FetchFunction;
}

/** The idempotency key of one write; without it the client makes one. */
export interface WriteOptions {
  idempotencyKey?: string;
}

type Schemas = components['schemas'];
type QueryOf<O extends keyof operations> = Omit<NonNullable<operations[O]['parameters']['query']>, 'cursor'>;
type BodyOf<O extends keyof operations> = operations[O] extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;
type Id = string | number;

async function unwrap<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) throw PartnerApiError.fromResponse(response.status, error, response.headers);
  return data as T;
}

const writeHeaders = (options: WriteOptions) => (options.idempotencyKey === undefined ? {} : { 'Idempotency-Key': options.idempotencyKey });

export function createPartnerClient(options: PartnerClientOptions) {
  if (!/^svc_(live|test)_[0-9A-Za-z]+$/.test(options.apiKey ?? '')) throw new TypeError('apiKey must be an API key (svc_live_… or svc_test_…)');
  if (!URL.canParse(options.baseUrl ?? '')) throw new TypeError(`baseUrl must be an absolute URL, got ${String(options.baseUrl)}`);
  const api = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: { Authorization: `Bearer ${options.apiKey}` },
    fetch: retryingFetch(resolveRetryOptions(options.retries), options.fetch),
  });
  const path = (id: Id) => ({ id: String(id) });
  /** Every item of a list operation, page after page. */
  const list = <T>(fetchPage: (cursor: string | undefined) => Promise<{ data?: ListPage<T>; error?: unknown; response: Response }>) =>
    paginate<T>((cursor) => unwrap(fetchPage(cursor)) as Promise<ListPage<T>>);

  return {
    /** The openapi-fetch client itself, for anything the methods below do not cover. */
    raw: api,
    apiKey: {
      retrieve: () => unwrap(api.GET('/')),
    },
    events: {
      list: (query: QueryOf<'listEvents'> = {}) => list<Schemas['Event']>((cursor) => api.GET('/events', { params: { query: { ...query, cursor } } })),
      retrieve: (id: Id) => unwrap(api.GET('/events/{id}', { params: { path: path(id) } })),
      ticketTypes: (id: Id) => list<Schemas['TicketType']>(() => api.GET('/events/{id}/ticket_types', { params: { path: path(id) } })),
      attendees: (id: Id, query: QueryOf<'listAttendees'> = {}) =>
        list<Schemas['Ticket']>((cursor) => api.GET('/events/{id}/attendees', { params: { path: path(id), query: { ...query, cursor } } })),
      checkIn: (id: Id, body: BodyOf<'createCheckIn'>, write: WriteOptions = {}) =>
        unwrap(api.POST('/events/{id}/check_ins', { params: { path: path(id), header: writeHeaders(write) }, body })),
    },
    venues: {
      list: (query: QueryOf<'listVenues'> = {}) => list<Schemas['Venue']>((cursor) => api.GET('/venues', { params: { query: { ...query, cursor } } })),
      retrieve: (id: Id) => unwrap(api.GET('/venues/{id}', { params: { path: path(id) } })),
    },
    checkoutSessions: {
      create: (body: BodyOf<'createCheckoutSession'>, write: WriteOptions = {}) =>
        unwrap(api.POST('/checkout_sessions', { params: { header: writeHeaders(write) }, body })),
      retrieve: (id: string) => unwrap(api.GET('/checkout_sessions/{id}', { params: { path: { id } } })),
    },
    orders: {
      list: (query: QueryOf<'listOrders'> = {}) => list<Schemas['Order']>((cursor) => api.GET('/orders', { params: { query: { ...query, cursor } } })),
      retrieve: (id: string) => unwrap(api.GET('/orders/{id}', { params: { path: { id } } })),
    },
    tickets: {
      retrieve: (id: Id) => unwrap(api.GET('/tickets/{id}', { params: { path: path(id) } })),
    },
    compTickets: {
      create: (body: BodyOf<'createCompTickets'>, write: WriteOptions = {}) => unwrap(api.POST('/comp_tickets', { params: { header: writeHeaders(write) }, body })),
    },
    webhookEndpoints: {
      list: () => list<Schemas['WebhookEndpoint']>(() => api.GET('/webhook_endpoints')),
      create: (body: BodyOf<'createWebhookEndpoint'>, write: WriteOptions = {}) =>
        unwrap(api.POST('/webhook_endpoints', { params: { header: writeHeaders(write) }, body })),
      retrieve: (id: Id) => unwrap(api.GET('/webhook_endpoints/{id}', { params: { path: path(id) } })),
      update: (id: Id, body: BodyOf<'updateWebhookEndpoint'>, write: WriteOptions = {}) =>
        unwrap(api.PATCH('/webhook_endpoints/{id}', { params: { path: path(id), header: writeHeaders(write) }, body })),
      delete: async (id: Id, write: WriteOptions = {}): Promise<void> => {
        await unwrap(api.DELETE('/webhook_endpoints/{id}', { params: { path: path(id), header: writeHeaders(write) } }));
      },
      sendTest: (id: Id, body: BodyOf<'sendTestWebhookEvent'> = {}, write: WriteOptions = {}) =>
        unwrap(api.POST('/webhook_endpoints/{id}/test', { params: { path: path(id), header: writeHeaders(write) }, body })),
    },
  };
}

export type PartnerClient = ReturnType<typeof createPartnerClient>;
