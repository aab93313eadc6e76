/**
 * Whose address an IP allowlist sees (D381): the socket's peer, unless that
 * peer is a proxy named in TRUST_PROXY, whose X-Forwarded-For then names
 * the caller. Two real gateways: one trusting no proxy (the default), one
 * trusting 127.0.0.1 only. Callers on other loopback addresses
 * (127.0.0.0/8 is all this host's) stand in for clients and untrusted peers.
 */
import http from 'node:http';
import { createPool, randomBase62, redisFromEnv, type RedisClient } from '@partner-api/shared';
import { KeyAdmin } from '../src/domain/key-admin';
import { KeyAdmission } from '../src/storage/key-admission';
import { KeyRepository } from '../src/storage/key-repository';
import { startHarness, type Harness } from './harness';

let direct: Harness;
let proxied: Harness;
let admin: KeyAdmin;
let pool: ReturnType<typeof createPool>;
let redis: RedisClient;

beforeAll(async () => {
  direct = await startHarness(['events:read'], { TRUST_PROXY: '' });
  proxied = await startHarness(['events:read'], { TRUST_PROXY: '127.0.0.1' });
  pool = createPool({ url: process.env.DATABASE_URL!, schema: 'gateway', max: 1 });
  redis = redisFromEnv();
  admin = new KeyAdmin(new KeyRepository(pool), { pool, notifier: new KeyAdmission(redis) });
}, 60_000);

afterAll(async () => {
  await direct?.stop();
  await proxied?.stop();
  await pool?.end();
  await redis?.quit();
});

/** A key of the harness's organisation admitting only `allowlist`. */
async function keyAllowing(harness: Harness, allowlist: string): Promise<string> {
  const key = await admin.issueKey({ organisationId: harness.organisationId, name: `ip-${randomBase62(6)}`, mode: 'live', scopes: ['events:read'], rateLimit: 100_000 });
  await admin.setAllowlist(harness.organisationId, key.id, allowlist);
  return key.secret;
}

/** `GET /` sent from `localAddress` (a loopback address), with the key and any extra headers; the status and error code. */
function callFrom(harness: Harness, localAddress: string, key: string, headers: Record<string, string> = {}): Promise<{ status: number; code?: string }> {
  const url = new URL(harness.baseUrl);
  return new Promise((resolve, reject) => {
    const request = http.get(
      { host: url.hostname, port: url.port, path: '/', localAddress, agent: false, headers: { authorization: `Bearer ${key}`, ...headers } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { error?: { code: string } };
          resolve({ status: response.statusCode!, code: body.error?.code });
        });
      },
    );
    request.on('error', reject);
  });
}

describe('trusting no proxy (the default)', () => {
  it('admits and refuses by the caller’s own address', async () => {
    const key = await keyAllowing(direct, '127.0.0.5');
    expect(await callFrom(direct, '127.0.0.5', key)).toEqual({ status: 200, code: undefined });
    expect(await callFrom(direct, '127.0.0.6', key)).toEqual({ status: 403, code: 'ip_not_allowed' });
  });

  it('a forged X-Forwarded-For cannot unlock a key for an address outside its allowlist', async () => {
    const key = await keyAllowing(direct, '203.0.113.5');
    expect(await callFrom(direct, '127.0.0.6', key, { 'x-forwarded-for': '203.0.113.5' })).toEqual({ status: 403, code: 'ip_not_allowed' });
  });

  it('a forged X-Forwarded-For cannot lock out a caller the allowlist admits', async () => {
    const key = await keyAllowing(direct, '127.0.0.5');
    expect(await callFrom(direct, '127.0.0.5', key, { 'x-forwarded-for': '198.51.100.9' })).toEqual({ status: 200, code: undefined });
  });
});

describe('trusting a configured proxy', () => {
  it('believes the caller that the proxy names', async () => {
    const key = await keyAllowing(proxied, '203.0.113.5');
    expect(await callFrom(proxied, '127.0.0.1', key, { 'x-forwarded-for': '203.0.113.5' })).toEqual({ status: 200, code: undefined });
    expect(await callFrom(proxied, '127.0.0.1', key, { 'x-forwarded-for': '198.51.100.9' })).toEqual({ status: 403, code: 'ip_not_allowed' });
    // The proxy itself is not the caller: without the header it is refused like anyone else.
    expect(await callFrom(proxied, '127.0.0.1', key)).toEqual({ status: 403, code: 'ip_not_allowed' });
  });

  it('takes the address the trusted proxy saw, not what the client wrote before it', async () => {
    const key = await keyAllowing(proxied, '203.0.113.5');
    // A client forging "203.0.113.5" through the proxy: the proxy appends the address it saw.
    expect(await callFrom(proxied, '127.0.0.1', key, { 'x-forwarded-for': '203.0.113.5, 198.51.100.9' })).toEqual({ status: 403, code: 'ip_not_allowed' });
  });

  it('ignores the header from a peer that is not the configured proxy (both ways)', async () => {
    const unlock = await keyAllowing(proxied, '203.0.113.5');
    expect(await callFrom(proxied, '127.0.0.7', unlock, { 'x-forwarded-for': '203.0.113.5' })).toEqual({ status: 403, code: 'ip_not_allowed' });
    const lockOut = await keyAllowing(proxied, '127.0.0.7');
    expect(await callFrom(proxied, '127.0.0.7', lockOut, { 'x-forwarded-for': '198.51.100.9' })).toEqual({ status: 200, code: undefined });
  });
});
