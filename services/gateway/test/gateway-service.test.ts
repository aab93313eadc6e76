/**
 * GatewayService against a real gateway (in this process, real PostgreSQL
 * and Redis): organisations and keys as the dashboard and partnerctl
 * manage them, a change biting on the key's next API request, and bad
 * input refused with its gRPC code and clear message, writing nothing.
 */
import * as grpc from '@grpc/grpc-js';
import { create } from '@bufbuild/protobuf';
import {
  ApiError,
  contextToMetadata,
  createServiceClient,
  GatewayKeys,
  gen,
  grpcServiceDefinition,
  operatorContext,
  randomBase62,
  type GatewayClient,
} from '@partner-api/shared';
import { startHarness, type Harness } from './harness';

// Listing every organisation of the shared database, on a machine other suites load too.
jest.setTimeout(30_000);

let harness: Harness;
let gateway: GatewayClient;
let keys: GatewayKeys;
let raw: grpc.Client & Record<string, grpc.requestCallback<unknown> & ((...args: unknown[]) => void)>;

beforeAll(async () => {
  harness = await startHarness(['events:read'], { KEY_USAGE_FLUSH_MS: '200' });
  gateway = createServiceClient(gen.gateway.GatewayService, harness.grpcAddress);
  keys = new GatewayKeys(gateway);
  const Client = grpc.makeGenericClientConstructor(grpcServiceDefinition(gen.gateway.GatewayService), 'GatewayService');
  raw = new Client(harness.grpcAddress, grpc.credentials.createInsecure()) as typeof raw;
}, 60_000);

afterAll(async () => {
  raw?.close();
  gateway?.close();
  await harness?.stop();
});

/** The gRPC status a call ends with, sent as any client would send it. */
function statusOf<M extends keyof typeof gen.gateway.GatewayService.method>(method: M, request: object, organisationId?: number): Promise<grpc.status> {
  const schema = gen.gateway.GatewayService.method[method].input;
  return new Promise((resolve) => {
    raw[method]!(create(schema, request as never), contextToMetadata(operatorContext(organisationId)), (error: grpc.ServiceError | null) => resolve(error ? error.code : grpc.status.OK));
  });
}

/** The ApiError a call is refused with (the shared client rebuilds it from the call's trailers). */
async function refusal(call: Promise<unknown>): Promise<{ code: string; message: string; param: string | null | undefined }> {
  const error: unknown = await call.then(
    () => undefined,
    (failure: unknown) => failure,
  );
  if (!(error instanceof ApiError)) throw new Error(`expected a refusal, got ${String(error)}`);
  return { code: error.code, message: error.message, param: error.param };
}

const slug = (prefix: string) => `${prefix}-${randomBase62(8).toLowerCase()}`;
const newOrganisation = async () => Number((await gateway.createOrganisation({ name: 'Service Org', slug: slug('svc') }, operatorContext())).id);
const apiStatus = async (secret: string) => (await fetch(`${harness.baseUrl}/`, { headers: { authorization: `Bearer ${secret}` } })).status;

describe('organisations', () => {
  it('are created, found by id and by slug, listed and renamed', async () => {
    const chosen = slug('org');
    const created = await gateway.createOrganisation({ name: '  Harbour Sounds ', slug: chosen }, operatorContext());
    expect(created).toMatchObject({ name: 'Harbour Sounds', slug: chosen });
    const byId = await gateway.getOrganisation({ organisation: { case: 'id', value: created.id } }, operatorContext());
    const bySlug = await gateway.getOrganisation({ organisation: { case: 'slug', value: chosen } }, operatorContext());
    expect(byId).toEqual(created);
    expect(bySlug).toEqual(created);
    expect((await gateway.listOrganisations({}, operatorContext())).data).toContainEqual(created);
    const renamed = await gateway.updateOrganisation({ id: created.id, name: 'Harbour Sounds Ltd' }, operatorContext());
    expect(renamed).toEqual({ ...created, name: 'Harbour Sounds Ltd' });
  });

  it('refuses a taken slug, a bad slug or name and an unknown id, with their codes, creating nothing', async () => {
    const taken = slug('taken');
    await gateway.createOrganisation({ name: 'First', slug: taken }, operatorContext());
    const count = async () => (await gateway.listOrganisations({}, operatorContext())).data.length;
    const before = await count();

    expect(await refusal(gateway.createOrganisation({ name: 'Copycat', slug: taken }, operatorContext()))).toEqual({
      code: 'parameter_invalid',
      message: `There is already an organisation with the slug "${taken}".`,
      param: 'slug',
    });
    expect(await statusOf('createOrganisation', { name: 'Copycat', slug: taken })).toBe(grpc.status.ABORTED);
    expect(await refusal(gateway.createOrganisation({ name: 'Bad', slug: 'Not A Slug' }, operatorContext()))).toMatchObject({ code: 'parameter_invalid', param: 'slug' });
    expect(await statusOf('createOrganisation', { name: 'Bad', slug: '-edge-' })).toBe(grpc.status.INVALID_ARGUMENT);
    expect(await refusal(gateway.createOrganisation({ name: '   ', slug: slug('blank') }, operatorContext()))).toMatchObject({ code: 'parameter_invalid', param: 'name' });
    expect(await count()).toBe(before);

    expect(await refusal(gateway.getOrganisation({ organisation: { case: 'id', value: 999_999_999_999n } }, operatorContext()))).toEqual({
      code: 'resource_missing',
      message: 'There is no organisation 999999999999.',
      param: 'id',
    });
    expect(await statusOf('getOrganisation', { organisation: { case: 'slug', value: slug('nobody') } })).toBe(grpc.status.NOT_FOUND);
    expect(await statusOf('getOrganisation', {})).toBe(grpc.status.INVALID_ARGUMENT);
    expect(await statusOf('updateOrganisation', { id: 0n, name: 'Zero' })).toBe(grpc.status.INVALID_ARGUMENT);
    expect(await statusOf('updateOrganisation', { id: 999_999_999_999n, name: 'Nobody' })).toBe(grpc.status.NOT_FOUND);
  });
});

describe('keys', () => {
  it('issues a key the API admits, lists it without its secret, and reports its use', async () => {
    const organisationId = await newOrganisation();
    const issued = await keys.issueKey({ organisationId, name: 'Box office', mode: 'live', scopes: ['events:read', 'events:read'], ipAllowlist: '127.0.0.1', rateLimit: 30 });
    expect(issued).toMatchObject({ mode: 'live', scopes: ['events:read'] });
    expect(await apiStatus(issued.secret)).toBe(200);

    const [listed] = await keys.listKeys(organisationId);
    expect(listed).toMatchObject({ id: issued.id, name: 'Box office', state: 'active', ip_allowlist: ['127.0.0.1/32'], rate_limit: 30, prefix: issued.prefix, last4: issued.last4 });
    const wire = await gateway.listApiKeys({}, operatorContext(organisationId));
    expect(JSON.stringify(wire, (_, value: unknown) => (typeof value === 'bigint' ? String(value) : value))).not.toContain(issued.secret.slice(-20));

    // Usage is written in batches (KEY_USAGE_FLUSH_MS, 200 ms here).
    let used: string | undefined;
    for (let attempt = 0; attempt < 50 && !used; attempt++) {
      used = (await gateway.getApiKey({ id: BigInt(issued.id) }, operatorContext(organisationId))).lastUsedAt;
      if (!used) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(Date.parse(used!)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('rolls, revokes and changes a key, each biting on its next request; keys of another organisation are not found', async () => {
    const organisationId = await newOrganisation();
    const key = await keys.issueKey({ organisationId, name: 'Roll me', mode: 'live', scopes: ['events:read'] });
    const rolled = await keys.rollKey(organisationId, key.id, 1);
    expect(rolled.oldKeyExpiresAt.getTime() - Date.now()).toBeGreaterThan(50 * 60_000);
    expect(await apiStatus(key.secret)).toBe(200);
    expect(await apiStatus(rolled.secret)).toBe(200);
    expect((await keys.listKeys(organisationId)).map((listed) => [listed.id, listed.state, listed.replaced_by])).toEqual([
      [key.id, 'expiring', rolled.id],
      [rolled.id, 'active', null],
    ]);

    const limited = await gateway.setApiKeyRateLimit({ id: BigInt(rolled.id), rateLimit: 7 }, operatorContext(organisationId));
    expect(limited.rateLimit).toBe(7);
    expect((await fetch(`${harness.baseUrl}/`, { headers: { authorization: `Bearer ${rolled.secret}` } })).headers.get('ratelimit-limit')).toBe('7');
    expect(await keys.setAllowlist(organisationId, rolled.id, '203.0.113.0/24')).toEqual(['203.0.113.0/24']);
    expect(await apiStatus(rolled.secret)).toBe(403);

    const revoked = await gateway.revokeApiKey({ id: BigInt(rolled.id) }, operatorContext(organisationId));
    expect(revoked.state).toBe('revoked');
    expect(await apiStatus(rolled.secret)).toBe(401);

    const stranger = await newOrganisation();
    expect(await refusal(keys.revokeKey(stranger, key.id))).toMatchObject({ code: 'resource_missing', message: 'No such API key in the organisation.' });
    expect(await statusOf('getApiKey', { id: BigInt(key.id) }, stranger)).toBe(grpc.status.NOT_FOUND);
    expect(await apiStatus(key.secret)).toBe(200);
  });

  it('refuses bad input with its code and a clear message, and writes nothing', async () => {
    const organisationId = await newOrganisation();
    const key = await keys.issueKey({ organisationId, name: 'Keep me', mode: 'test', scopes: ['events:read'] });
    const snapshot = async () => (await keys.listKeys(organisationId)).map(({ id, state, ip_allowlist, rate_limit, replaced_by }) => ({ id, state, ip_allowlist, rate_limit, replaced_by }));
    const before = await snapshot();
    const issue = (request: Partial<{ name: string; mode: string; scopes: string[]; ipAllowlist: string; rateLimit: number }>, organisation = organisationId) =>
      gateway.issueApiKey({ name: 'k', mode: 'live', scopes: ['events:read'], ...request }, operatorContext(organisation));

    expect(await refusal(issue({ scopes: ['events:read', 'events:write'] }))).toMatchObject({ code: 'parameter_invalid', param: 'scopes', message: expect.stringContaining('Scopes must be a non-empty subset of') });
    expect(await refusal(issue({ scopes: [] }))).toMatchObject({ param: 'scopes' });
    expect(await refusal(issue({ ipAllowlist: '10.0.0.0/8, not-an-address' }))).toMatchObject({ param: 'ip_allowlist', message: expect.stringContaining('IP addresses and CIDR ranges') });
    expect(await refusal(issue({ rateLimit: 0 }))).toMatchObject({ param: 'rate_limit' });
    expect(await refusal(issue({ rateLimit: -3 }))).toMatchObject({ param: 'rate_limit' });
    expect(await refusal(issue({ name: ' ' }))).toMatchObject({ param: 'name', message: 'Name the key (at most 100 characters).' });
    expect(await refusal(issue({ mode: 'staging' }))).toMatchObject({ param: 'mode' });
    expect(await statusOf('issueApiKey', { name: 'k', mode: 'live', scopes: ['nope'] }, organisationId)).toBe(grpc.status.INVALID_ARGUMENT);
    expect(await refusal(issue({}, 999_999_999_999))).toEqual({ code: 'resource_missing', message: 'There is no organisation 999999999999.', param: 'id' });
    expect(await statusOf('issueApiKey', { name: 'k', mode: 'live', scopes: ['events:read'] }, 999_999_999_999)).toBe(grpc.status.NOT_FOUND);

    const id = BigInt(key.id);
    expect(await refusal(gateway.rollApiKey({ id, graceHours: 500 }, operatorContext(organisationId)))).toMatchObject({ param: 'grace_hours', message: expect.stringContaining('0 to 168') });
    expect(await statusOf('rollApiKey', { id, graceHours: -1 }, organisationId)).toBe(grpc.status.INVALID_ARGUMENT);
    expect(await refusal(gateway.setApiKeyAllowlist({ id, ipAllowlist: '300.1.1.1' }, operatorContext(organisationId)))).toMatchObject({ param: 'ip_allowlist' });
    expect(await refusal(gateway.setApiKeyRateLimit({ id, rateLimit: -5 }, operatorContext(organisationId)))).toMatchObject({ param: 'rate_limit' });
    expect(await statusOf('revokeApiKey', { id: 0n }, organisationId)).toBe(grpc.status.INVALID_ARGUMENT);
    expect(await statusOf('revokeApiKey', { id: 999_999_999_999n }, organisationId)).toBe(grpc.status.NOT_FOUND);

    // A rolled key is not rolled twice, and trying issues nothing.
    await keys.rollKey(organisationId, key.id, 24);
    const afterRoll = await snapshot();
    expect(await refusal(keys.rollKey(organisationId, key.id, 24))).toMatchObject({ message: 'Only a key that is in use and not already rolled can be rolled.' });
    expect(await snapshot()).toEqual(afterRoll);
    expect(afterRoll.slice(0, before.length).map(({ id: keyId, ip_allowlist, rate_limit }) => ({ id: keyId, ip_allowlist, rate_limit }))).toEqual(
      before.map(({ id: keyId, ip_allowlist, rate_limit }) => ({ id: keyId, ip_allowlist, rate_limit })),
    );
  });
});
