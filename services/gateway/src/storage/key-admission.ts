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
 *
 * The admissions of one turn of the event loop for the same key and version
 * go as one script call that counts them all (an on-sale's buyers arrive
 * together on a partner's one key): each request still gets the count it
 * would have got alone, in the order it asked, so the limit bites at exactly
 * the same request.
 */
import { randomUUID } from 'node:crypto';
import type { RedisClient } from '@partner-api/shared';

/** The version of a key Redis has none for: never current. */
export const NO_VERSION = '';

// KEYS[1] = version, KEYS[2] = window counter; ARGV[1] = expected version, ARGV[2] = window ms, ARGV[3] = a fresh version,
// ARGV[4] = requests to count. Returns {count after them} when admitted and counted; {-1} when the callers' copy is stale,
// writing a fresh version if there was none.
const ADMIT_SCRIPT = `
local version = redis.call('GET', KEYS[1])
if not version then
  redis.call('SET', KEYS[1], ARGV[3])
  return {-1}
end
if version ~= ARGV[1] then return {-1} end
local requests = tonumber(ARGV[4])
local count = redis.call('INCRBY', KEYS[2], requests)
if count == requests then redis.call('PEXPIRE', KEYS[2], ARGV[2]) end
return {count}
`;

interface AdmissionCommands {
  admitKey(versionKey: string, counterKey: string, expectedVersion: string, windowMs: number, freshVersion: string, requests: number): Promise<[number]>;
}

export const WINDOW_SECONDS = 60;

const versionKey = (hashHex: string) => `gw:kv:{${hashHex}}`;
const counterKey = (hashHex: string, window: number) => `gw:rl:{${hashHex}}:${window}`;

export type Admission = { stale: true } | { stale: false; count: number; resetSeconds: number };

/** The admissions asked for in one turn for one key at one version. */
interface Gathered {
  hashHex: string;
  expectedVersion: string;
  waiting: Array<{ resolve(admission: Admission): void; reject(error: unknown): void }>;
}

export class KeyAdmission {
  private readonly commands: AdmissionCommands;
  /** This turn's admissions, per key hash and version. */
  private gathered = new Map<string, Gathered>();

  constructor(
    private readonly redis: RedisClient,
    private readonly clock: () => number = Date.now,
  ) {
    redis.defineCommand('admitKey', { numberOfKeys: 2, lua: ADMIT_SCRIPT });
    // Already gathered per turn here: ioredis's auto-pipeline would hold each call back one more turn.
    const ignored = redis.options.autoPipeliningIgnoredCommands ?? [];
    if (!ignored.includes('admitKey')) redis.options.autoPipeliningIgnoredCommands = [...ignored, 'admitKey'];
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

  /** Counts one request of the key, unless the caller's copy of it (expectedVersion) is stale. */
  admit(hashHex: string, expectedVersion: string): Promise<Admission> {
    return new Promise((resolve, reject) => {
      if (this.gathered.size === 0) setImmediate(() => this.sendGathered());
      const at = `${hashHex}/${expectedVersion}`;
      let group = this.gathered.get(at);
      if (!group) {
        group = { hashHex, expectedVersion, waiting: [] };
        this.gathered.set(at, group);
      }
      group.waiting.push({ resolve, reject });
    });
  }

  private sendGathered(): void {
    const groups = this.gathered;
    this.gathered = new Map();
    for (const group of groups.values()) void this.admitGroup(group);
  }

  private async admitGroup({ hashHex, expectedVersion, waiting }: Gathered): Promise<void> {
    try {
      const now = this.clock();
      const window = Math.floor(now / (WINDOW_SECONDS * 1000));
      const windowEndsInMs = (window + 1) * WINDOW_SECONDS * 1000 - now;
      const [count] = await this.commands.admitKey(
        versionKey(hashHex), counterKey(hashHex, window), expectedVersion, windowEndsInMs + 1000, randomUUID(), waiting.length,
      );
      if (count < 0) {
        for (const caller of waiting) caller.resolve({ stale: true });
        return;
      }
      const resetSeconds = Math.max(1, Math.ceil(windowEndsInMs / 1000));
      const first = count - waiting.length + 1;
      waiting.forEach((caller, index) => caller.resolve({ stale: false, count: first + index, resetSeconds }));
    } catch (error) {
      for (const caller of waiting) caller.reject(error);
    }
  }
}
