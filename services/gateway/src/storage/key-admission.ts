/**
 * The Redis side of authentication, one round trip per request: a version
 * per key (changed by every operator change to it) and the fixed-window
 * counter. The script counts a request only when the caller's cached copy
 * of the key is current, so a revoked, rolled or re-scoped key is reloaded
 * on its very next request on every gateway replica. Both keys carry the
 * key hash as hash tag: one Redis Cluster slot.
 *
 * Versions are random tokens, never a count from zero, and a missing
 * version is never current: Redis may lose everything (it runs without
 * persistence, docs/decisions.md D47), and a gateway that cached a key
 * before a revocation must not find its old version again in an emptied
 * Redis. A key with no version reads as version '' (which never matches);
 * the first admission of such a key writes a fresh version and answers
 * stale, so the gateway re-reads the key from PostgreSQL after that write.
 * Only keys that pass every other check get that far: requests with unknown
 * keys never write to Redis.
 */
import { randomUUID } from 'node:crypto';
import type { RedisClient } from '@partner-api/shared';

/** The version of a key Redis has none for: never current. */
export const NO_VERSION = '';

// KEYS[1] = version, KEYS[2] = window counter; ARGV[1] = expected version, ARGV[2] = window ms, ARGV[3] = a fresh version.
// Returns {count} when admitted and counted; {-1} when the caller's copy is stale, writing a fresh version if there was none.
const ADMIT_SCRIPT = `
local version = redis.call('GET', KEYS[1])
if not version then
  redis.call('SET', KEYS[1], ARGV[3])
  return {-1}
end
if version ~= ARGV[1] then return {-1} end
local count = redis.call('INCR', KEYS[2])
if count == 1 then redis.call('PEXPIRE', KEYS[2], ARGV[2]) end
return {count}
`;

interface AdmissionCommands {
  admitKey(versionKey: string, counterKey: string, expectedVersion: string, windowMs: number, freshVersion: string): Promise<[number]>;
}

export const WINDOW_SECONDS = 60;

const versionKey = (hashHex: string) => `gw:kv:{${hashHex}}`;
const counterKey = (hashHex: string, window: number) => `gw:rl:{${hashHex}}:${window}`;

export type Admission = { stale: true } | { stale: false; count: number; resetSeconds: number };

export class KeyAdmission {
  private readonly commands: AdmissionCommands;

  constructor(
    private readonly redis: RedisClient,
    private readonly clock: () => number = Date.now,
  ) {
    redis.defineCommand('admitKey', { numberOfKeys: 2, lua: ADMIT_SCRIPT });
    this.commands = redis as unknown as AdmissionCommands;
  }

  /** The key's current version (NO_VERSION if it has none); read before the key itself is read from PostgreSQL. */
  async version(hashHex: string): Promise<string> {
    return (await this.redis.get(versionKey(hashHex))) ?? NO_VERSION;
  }

  /** Tells every gateway its copy of the key is out of date. Call after the change commits. */
  async bump(hashHex: string): Promise<void> {
    await this.redis.set(versionKey(hashHex), randomUUID());
  }

  async admit(hashHex: string, expectedVersion: string): Promise<Admission> {
    const now = this.clock();
    const window = Math.floor(now / (WINDOW_SECONDS * 1000));
    const windowEndsInMs = (window + 1) * WINDOW_SECONDS * 1000 - now;
    const [count] = await this.commands.admitKey(versionKey(hashHex), counterKey(hashHex, window), expectedVersion, windowEndsInMs + 1000, randomUUID());
    if (count < 0) return { stale: true };
    return { stale: false, count, resetSeconds: Math.max(1, Math.ceil(windowEndsInMs / 1000)) };
  }
}
