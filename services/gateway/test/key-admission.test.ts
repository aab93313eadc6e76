/**
 * KeyAdmission against the real Redis: admissions gathered in one turn of
 * the event loop are counted as if each had gone alone, in the order they
 * were asked for, and a stale copy of a key is never counted.
 */
import { randomBytes } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { redisFromEnv, type RedisClient } from '@partner-api/shared';
import { KeyAdmission, NO_VERSION } from '../src/storage/key-admission';

let redis: RedisClient;
let admission: KeyAdmission;

beforeAll(() => {
  redis = redisFromEnv();
  admission = new KeyAdmission(redis);
});

afterAll(async () => {
  await redis.quit();
});

/** A key hash nobody else uses, with a current version. */
async function freshKey(): Promise<{ hashHex: string; version: string }> {
  const hashHex = randomBytes(32).toString('hex');
  await admission.bump(hashHex);
  return { hashHex, version: await admission.version(hashHex) };
}

describe('KeyAdmission', () => {
  it('counts the admissions of one turn one by one, in the order they were asked for', async () => {
    const { hashHex, version } = await freshKey();
    const verdicts = await Promise.all(Array.from({ length: 5 }, () => admission.admit(hashHex, version)));
    expect(verdicts.map((verdict) => (verdict.stale ? 'stale' : verdict.count))).toEqual([1, 2, 3, 4, 5]);
    for (const verdict of verdicts) expect(verdict.stale || verdict.resetSeconds).toBeGreaterThanOrEqual(1);

    await nextTurn();
    const later = await Promise.all([admission.admit(hashHex, version), admission.admit(hashHex, version)]);
    expect(later.map((verdict) => (verdict.stale ? 'stale' : verdict.count))).toEqual([6, 7]);
  });

  it('keeps keys apart, and counts none of the callers holding a stale copy', async () => {
    const first = await freshKey();
    const second = await freshKey();
    const verdicts = await Promise.all([
      admission.admit(first.hashHex, first.version),
      admission.admit(second.hashHex, second.version),
      admission.admit(first.hashHex, 'an-old-version'),
      admission.admit(first.hashHex, first.version),
      admission.admit(second.hashHex, 'an-old-version'),
    ]);
    expect(verdicts.map((verdict) => (verdict.stale ? 'stale' : verdict.count))).toEqual([1, 1, 'stale', 2, 'stale']);
  });

  it('answers stale to every caller of a key Redis has no version for, and gives it one', async () => {
    const hashHex = randomBytes(32).toString('hex');
    const verdicts = await Promise.all([admission.admit(hashHex, NO_VERSION), admission.admit(hashHex, NO_VERSION)]);
    expect(verdicts).toEqual([{ stale: true }, { stale: true }]);
    const version = await admission.version(hashHex);
    expect(version).not.toBe(NO_VERSION);
    await expect(admission.admit(hashHex, version)).resolves.toMatchObject({ stale: false, count: 1 });
  });
});
