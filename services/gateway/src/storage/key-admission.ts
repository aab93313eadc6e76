/**
 * The Redis side of authentication, one round trip per request: a version
 * per key (bumped by every operator change to it) and the fixed-window
 * counter. The script counts a request only when the caller's cached copy
 * of the key is current, so a revoked, rolled or re-scoped key is reloaded
 * on its very next request on every gateway replica. Both keys carry the
 * key hash as hash tag: one Redis Cluster slot.
 */
import type { Redis } from 'ioredis';

// KEYS[1] = version, KEYS[2] = window counter; ARGV[1] = expected version, ARGV[2] = window ms.
// Returns {count, 0} when admitted and counted, {-1, version} when the caller's copy is stale.
const ADMIT_SCRIPT = `
local version = redis.call('GET', KEYS[1]) or '0'
if version ~= ARGV[1] then return {-1, tonumber(version)} end
local count = redis.call('INCR', KEYS[2])
if count == 1 then redis.call('PEXPIRE', KEYS[2], ARGV[2]) end
return {count, 0}
`;

interface AdmissionCommands {
  admitKey(versionKey: string, counterKey: string, expectedVersion: string, windowMs: number): Promise<[number, number]>;
}

export const WINDOW_SECONDS = 60;

const versionKey = (hashHex: string) => `gw:kv:{${hashHex}}`;
const counterKey = (hashHex: string, window: number) => `gw:rl:{${hashHex}}:${window}`;

export type Admission = { stale: true } | { stale: false; count: number; resetSeconds: number };

export class KeyAdmission {
  private readonly commands: AdmissionCommands;

  constructor(
    private readonly redis: Redis,
    private readonly clock: () => number = Date.now,
  ) {
    redis.defineCommand('admitKey', { numberOfKeys: 2, lua: ADMIT_SCRIPT });
    this.commands = redis as unknown as AdmissionCommands;
  }

  /** The key's current version; read before the key itself is read from PostgreSQL. */
  async version(hashHex: string): Promise<string> {
    return (await this.redis.get(versionKey(hashHex))) ?? '0';
  }

  /** Tells every gateway its copy of the key is out of date. Call after the change commits. */
  async bump(hashHex: string): Promise<void> {
    await this.redis.incr(versionKey(hashHex));
  }

  async admit(hashHex: string, expectedVersion: string): Promise<Admission> {
    const now = this.clock();
    const window = Math.floor(now / (WINDOW_SECONDS * 1000));
    const windowEndsInMs = (window + 1) * WINDOW_SECONDS * 1000 - now;
    const [count] = await this.commands.admitKey(versionKey(hashHex), counterKey(hashHex, window), expectedVersion, windowEndsInMs + 1000);
    if (count < 0) return { stale: true };
    return { stale: false, count, resetSeconds: Math.max(1, Math.ceil(windowEndsInMs / 1000)) };
  }
}
