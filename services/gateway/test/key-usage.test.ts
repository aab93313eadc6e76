/**
 * Keys' last-used times (D310) against the real PostgreSQL and Redis: the
 * authentication middleware with a recorder on a real pool, read back
 * through KeyAdmin.listKeys; then the whole gateway, whose periodic flush
 * and shutdown flush write what its requests used.
 */
import express from 'express';
import { serveOnLoopback } from '../../shared/test/support';
import { createLogger, createPool, randomBase62, redisFromEnv, type RedisClient } from '@partner-api/shared';
import { KeyAdmin } from '../src/domain/key-admin';
import { KeyResolver } from '../src/domain/key-resolver';
import { KeyUsage } from '../src/domain/key-usage';
import { Organisations } from '../src/domain/organisations';
import { errorHandler, routeNotFound } from '../src/http/errors';
import { authenticate } from '../src/http/middleware/authenticate';
import { requestContext } from '../src/http/middleware/request-context';
import { KeyAdmission } from '../src/storage/key-admission';
import { KeyRepository } from '../src/storage/key-repository';
import { KeyUsageStore } from '../src/storage/key-usage-store';
import { startHarness } from './harness';

const logger = createLogger('key-usage-test', 'silent');
let redis: RedisClient;
let pool: ReturnType<typeof createPool>;
let admin: KeyAdmin;

beforeAll(() => {
  redis = redisFromEnv();
  pool = createPool({ url: process.env.DATABASE_URL!, schema: 'gateway', max: 2 });
  admin = new KeyAdmin(new KeyRepository(pool), { pool, notifier: new KeyAdmission(redis) });
});

afterAll(async () => {
  await pool.end();
  await redis.quit();
});

const newOrganisation = () => new Organisations(new KeyRepository(pool)).create('Key Usage Org', `usage-${randomBase62(8).toLowerCase()}`);
const listed = async (organisationId: number, keyId: number) => (await admin.listKeys(organisationId)).find((key) => key.id === keyId)!;

describe('last_used_at through the authentication middleware', () => {
  let served: { baseUrl: string; close: () => Promise<void> };
  let baseUrl: string;
  let usage: KeyUsage;
  const store = () => new KeyUsageStore(pool);

  beforeAll(async () => {
    usage = new KeyUsage((keyIds, usedAt) => store().recordUse(keyIds, usedAt), logger);
    const admission = new KeyAdmission(redis);
    const app = express();
    app.use(requestContext('https://docs.example.com/errors'));
    app.use(authenticate(new KeyResolver(new KeyRepository(pool), admission), admission, usage));
    app.get('/', (_req, res) => {
      res.json({ ok: true });
    });
    app.use(routeNotFound);
    app.use(errorHandler(logger));
    served = await serveOnLoopback(app);
    baseUrl = served.baseUrl;
  });

  afterAll(async () => {
    await served.close();
  });

  const get = async (secret: string) => (await fetch(`${baseUrl}/`, { headers: { authorization: `Bearer ${secret}` } })).status;

  it('is null until the key is used, then the time of its last request once flushed', async () => {
    const organisation = await newOrganisation();
    const key = await admin.issueKey({ organisationId: organisation.id, name: 'a', mode: 'live', scopes: ['events:read'] });
    const idle = await admin.issueKey({ organisationId: organisation.id, name: 'b', mode: 'test', scopes: ['events:read'] });
    expect((await listed(organisation.id, key.id)).last_used_at).toBeNull();

    const before = Date.now();
    expect(await get(key.secret)).toBe(200);
    expect(await get(key.secret)).toBe(200);
    const after = Date.now();
    // Noted in memory only: nothing is written per request.
    expect((await listed(organisation.id, key.id)).last_used_at).toBeNull();

    await usage.flush();
    const used = (await listed(organisation.id, key.id)).last_used_at!;
    expect(used).toBeInstanceOf(Date);
    expect(used.getTime()).toBeGreaterThanOrEqual(before);
    expect(used.getTime()).toBeLessThanOrEqual(after);
    expect((await listed(organisation.id, idle.id)).last_used_at).toBeNull();
  });

  it("records a rolled key's old secret against the old key", async () => {
    const organisation = await newOrganisation();
    const key = await admin.issueKey({ organisationId: organisation.id, name: 'rolled', mode: 'live', scopes: ['events:read'] });
    const rolled = await admin.rollKey(organisation.id, key.id, 24);

    expect(await get(key.secret)).toBe(200);
    await usage.flush();
    expect((await listed(organisation.id, key.id)).last_used_at).toBeInstanceOf(Date);
    expect((await listed(organisation.id, rolled.id)).last_used_at).toBeNull();

    expect(await get(rolled.secret)).toBe(200);
    await usage.flush();
    expect((await listed(organisation.id, rolled.id)).last_used_at).toBeInstanceOf(Date);
  });

  it('does not note a refused key', async () => {
    const organisation = await newOrganisation();
    const key = await admin.issueKey({ organisationId: organisation.id, name: 'revoked', mode: 'live', scopes: ['events:read'] });
    await admin.revokeKey(organisation.id, key.id);
    expect(await get(key.secret)).toBe(401);
    await usage.flush();
    expect((await listed(organisation.id, key.id)).last_used_at).toBeNull();
  });

  it('never moves last_used_at backwards: an older batch from another replica leaves the newer time', async () => {
    const organisation = await newOrganisation();
    const key = await admin.issueKey({ organisationId: organisation.id, name: 'replicas', mode: 'live', scopes: ['events:read'] });
    const newer = new Date('2026-11-25T10:00:05.000Z');
    const older = new Date('2026-11-25T10:00:01.000Z');
    await store().recordUse([key.id], [newer]);
    await store().recordUse([key.id], [older]);
    expect((await listed(organisation.id, key.id)).last_used_at).toEqual(newer);
  });
});

describe('last_used_at from a running gateway', () => {
  const onlyKey = async (organisationId: number) => (await admin.listKeys(organisationId))[0]!;

  it('is written by the periodic flush while the gateway runs', async () => {
    const harness = await startHarness(['events:read'], { KEY_USAGE_FLUSH_MS: '200' });
    try {
      const before = Date.now();
      expect((await fetch(`${harness.baseUrl}/`, { headers: { authorization: `Bearer ${harness.liveKey}` } })).status).toBe(200);
      let used: Date | null = null;
      for (let waited = 0; used === null && waited < 10_000; waited += 100) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        used = (await onlyKey(harness.organisationId)).last_used_at;
      }
      expect(used!.getTime()).toBeGreaterThanOrEqual(before);
    } finally {
      await harness.stop();
    }
  }, 60_000);

  it('is written at shutdown for requests the periodic flush never reached', async () => {
    // A flush interval longer than the test: only the shutdown flush can write it.
    const harness = await startHarness(['events:read'], { KEY_USAGE_FLUSH_MS: '3600000' });
    let stopped = false;
    try {
      const before = Date.now();
      expect((await fetch(`${harness.baseUrl}/`, { headers: { authorization: `Bearer ${harness.liveKey}` } })).status).toBe(200);
      expect((await onlyKey(harness.organisationId)).last_used_at).toBeNull();
      await harness.stop();
      stopped = true;
      const used = (await onlyKey(harness.organisationId)).last_used_at;
      expect(used!.getTime()).toBeGreaterThanOrEqual(before);
    } finally {
      if (!stopped) await harness.stop();
    }
  }, 60_000);
});
