/**
 * Operator actions on keys: the one implementation of issuing, rolling,
 * revoking and changing a key, served over gRPC to the dashboard and partnerctl.
 */
import { ApiError, inTransaction, type IssuedKey, type KeyMode, type Pool, type PoolClient } from '@partner-api/shared';
import type { KeyListing, KeyRepository } from '../storage/key-repository';
import { displayParts, generateSecret, hashSecret, SCOPES, type Scope } from './api-keys';
import { parseAllowlist } from './ip-allowlist';
import { noSuchOrganisation } from './organisations';

type LockedKey = KeyListing & { secret_hash: Buffer };

export const MAX_KEY_NAME_LENGTH = 100;
export const MAX_RATE_LIMIT = 1_000_000;

/** Dashboard choices are now, 1 h, 24 h (default), 3 days and 7 days; any whole hour 0–168 is allowed. */
export const MAX_GRACE_HOURS = 168;
export const DEFAULT_GRACE_HOURS = 24;

export type KeyState = 'active' | 'expiring' | 'expired' | 'revoked';

export function keyState(key: Pick<KeyListing, 'revoked_at' | 'expires_at'>, now: Date): KeyState {
  if (key.revoked_at && key.revoked_at <= now) return 'revoked';
  if (key.expires_at) return key.expires_at <= now ? 'expired' : 'expiring';
  return 'active';
}

/** Tells the gateways a key changed (KeyAdmission.bump). */
export interface KeyChangeNotifier {
  bump(secretHashHex: string): Promise<void>;
}

function allowlistEntries(allowlist: string): string[] {
  try {
    return parseAllowlist(allowlist);
  } catch {
    throw new ApiError('parameter_invalid', 'The allowlist holds IP addresses and CIDR ranges, comma-separated.', 'ip_allowlist');
  }
}

/** A custom per-minute limit, or null for the mode's default. */
function checkedRateLimit(limit: number | null): number | null {
  if (limit !== null && (!Number.isInteger(limit) || limit < 1 || limit > MAX_RATE_LIMIT)) {
    throw new ApiError('parameter_invalid', 'The rate limit is a whole number of requests per minute (1 to 1,000,000).', 'rate_limit');
  }
  return limit;
}

export type KeyWithState = KeyListing & { state: KeyState };

export class KeyAdmin {
  constructor(
    private readonly keys: KeyRepository,
    private readonly changes?: { pool: Pool; notifier: KeyChangeNotifier },
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /**
   * Changes one existing key in a transaction, then tells every gateway, so
   * the change bites on the key's next request wherever it lands.
   */
  private async changeKey<T>(organisationId: number, keyId: number, work: (client: PoolClient, key: LockedKey) => Promise<T>): Promise<T> {
    if (!this.changes) throw new Error('changing a key needs PostgreSQL and Redis (to tell the gateways)');
    let hashHex = '';
    const result = await inTransaction(this.changes.pool, async (client) => {
      const key = await this.keys.lockKey(client, organisationId, keyId);
      if (!key) throw new ApiError('resource_missing', 'No such API key in the organisation.', 'id');
      hashHex = key.secret_hash.toString('hex');
      return work(client, key);
    });
    await this.changes.notifier.bump(hashHex);
    return result;
  }

  async listKeys(organisationId: number): Promise<KeyWithState[]> {
    const now = this.clock();
    return (await this.keys.listKeys(organisationId)).map((key) => ({ ...key, state: keyState(key, now) }));
  }

  /** One key with its usage (last_used_at). */
  async getKey(organisationId: number, keyId: number): Promise<KeyWithState> {
    const key = await this.keys.findKey(organisationId, keyId);
    if (!key) throw new ApiError('resource_missing', 'No such API key in the organisation.', 'id');
    return { ...key, state: keyState(key, this.clock()) };
  }

  /**
   * Issues a new secret with the same name, mode, scopes, allowlist and
   * limit. The old key works for `graceHours` more (shown as expiring, then
   * `api_key_expired`); 0 revokes it at once (`api_key_revoked`).
   */
  async rollKey(organisationId: number, keyId: number, graceHours = DEFAULT_GRACE_HOURS): Promise<IssuedKey & { oldKeyExpiresAt: Date }> {
    if (!Number.isInteger(graceHours) || graceHours < 0 || graceHours > MAX_GRACE_HOURS) {
      throw new ApiError('parameter_invalid', `The grace period is a whole number of hours from 0 to ${MAX_GRACE_HOURS}.`, 'grace_hours');
    }
    return this.changeKey(organisationId, keyId, async (client, old) => {
      if (keyState(old, this.clock()) === 'revoked' || old.replaced_by !== null) {
        throw new ApiError('parameter_invalid', 'Only a key that is in use and not already rolled can be rolled.', 'id');
      }
      const secret = generateSecret(old.mode);
      const { prefix, last4 } = displayParts(secret);
      const id = await this.keys.insertKey(
        { organisationId, name: old.name, mode: old.mode, secretHash: hashSecret(secret), prefix, last4, scopes: old.scopes, ipAllowlist: old.ip_allowlist, rateLimit: old.rate_limit },
        client,
      );
      const until = new Date(this.clock().getTime() + graceHours * 3_600_000);
      await this.keys.replaceKey(client, keyId, id, until, graceHours === 0);
      return { id, secret, prefix, last4, mode: old.mode, scopes: old.scopes as Scope[], oldKeyExpiresAt: until };
    });
  }

  /** Immediate and final: the next request with the key gets `api_key_revoked`. */
  async revokeKey(organisationId: number, keyId: number): Promise<void> {
    await this.changeKey(organisationId, keyId, async (client) => {
      await this.keys.revokeKey(client, keyId, this.clock());
    });
  }

  /** Comma-separated addresses and CIDR ranges; empty allows any address. */
  async setAllowlist(organisationId: number, keyId: number, allowlist: string): Promise<string[]> {
    const entries = allowlistEntries(allowlist);
    await this.changeKey(organisationId, keyId, (client) => this.keys.setKeyLimits(client, keyId, { ip_allowlist: entries }));
    return entries;
  }

  /** A custom per-minute limit, or null for the mode's default. */
  async setRateLimit(organisationId: number, keyId: number, limit: number | null): Promise<void> {
    const rateLimit = checkedRateLimit(limit);
    await this.changeKey(organisationId, keyId, (client) => this.keys.setKeyLimits(client, keyId, { rate_limit: rateLimit }));
  }

  async issueKey(options: {
    organisationId: number;
    name: string;
    mode: KeyMode;
    scopes: readonly string[];
    /** Comma-separated addresses and CIDR ranges, checked before anything is written. */
    ipAllowlist?: string;
    rateLimit?: number | null;
  }): Promise<IssuedKey> {
    // Everything is checked before anything is written: a refused key leaves nothing behind.
    const name = options.name.trim();
    if (name === '' || name.length > MAX_KEY_NAME_LENGTH) throw new ApiError('parameter_invalid', `Name the key (at most ${MAX_KEY_NAME_LENGTH} characters).`, 'name');
    if (options.mode !== 'live' && options.mode !== 'test') throw new ApiError('parameter_invalid', 'The mode is live or test.', 'mode');
    const scopes = [...new Set(options.scopes)];
    const unknown = scopes.filter((scope) => !(SCOPES as readonly string[]).includes(scope));
    if (scopes.length === 0 || unknown.length > 0) {
      throw new ApiError('parameter_invalid', `Scopes must be a non-empty subset of: ${SCOPES.join(', ')}.`, 'scopes');
    }
    const ipAllowlist = allowlistEntries(options.ipAllowlist ?? '');
    // Any positive limit at issue (suites and benchmarks issue keys far above what operators may set later).
    const rateLimit = options.rateLimit ?? null;
    if (rateLimit !== null && (!Number.isInteger(rateLimit) || rateLimit < 1)) {
      throw new ApiError('parameter_invalid', 'The rate limit is a positive whole number of requests per minute.', 'rate_limit');
    }
    if (!(await this.keys.findOrganisation(options.organisationId))) throw noSuchOrganisation(options.organisationId);
    const secret = generateSecret(options.mode);
    const { prefix, last4 } = displayParts(secret);
    const id = await this.keys.insertKey({
      organisationId: options.organisationId,
      name,
      mode: options.mode,
      secretHash: hashSecret(secret),
      prefix,
      last4,
      scopes,
      ipAllowlist,
      rateLimit,
    });
    return { id, secret, prefix, last4, mode: options.mode, scopes: scopes as Scope[] };
  }
}
