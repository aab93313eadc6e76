/**
 * Organisations and API keys, which the gateway owns, for the processes
 * that manage them (the dashboard, partnerctl): read and changed through
 * the gateway's gRPC service, so every gateway sees a change on the key's
 * next request. A refusal comes back as the gateway's ApiError.
 */
import { SCOPES, type Scope } from './api-scopes';
import { ApiError } from './errors';
import { operatorContext, type KeyMode } from './grpc';
import type { GatewayClient } from './service-clients';

/** A key as it is listed: never its secret. */
export interface ListedKey {
  id: number;
  name: string;
  mode: KeyMode;
  prefix: string;
  last4: string;
  scopes: string[];
  ip_allowlist: string[];
  rate_limit: number | null;
  state: string;
  created_at: Date;
  revoked_at: Date | null;
  expires_at: Date | null;
  replaced_by: number | null;
  last_used_at: Date | null;
}

/** A key just issued or rolled: its secret is shown this once (only its hash is kept). */
export interface IssuedKey {
  id: number;
  secret: string;
  prefix: string;
  last4: string;
  mode: KeyMode;
  scopes: Scope[];
}

type KeyMessage = Awaited<ReturnType<GatewayClient['getApiKey']>>;
type IssuedMessage = Awaited<ReturnType<GatewayClient['issueApiKey']>>;

const time = (value: string | undefined): Date | null => (value === undefined ? null : new Date(value));

const listed = (key: KeyMessage): ListedKey => ({
  id: Number(key.id),
  name: key.name,
  mode: key.mode as KeyMode,
  prefix: key.prefix,
  last4: key.last4,
  scopes: key.scopes,
  ip_allowlist: key.ipAllowlist,
  rate_limit: key.rateLimit ?? null,
  state: key.state,
  created_at: new Date(key.createdAt),
  revoked_at: time(key.revokedAt),
  expires_at: time(key.expiresAt),
  replaced_by: key.replacedBy === undefined ? null : Number(key.replacedBy),
  last_used_at: time(key.lastUsedAt),
});

const isScope = (scope: string): scope is Scope => (SCOPES as readonly string[]).includes(scope);

const issued = (key: IssuedMessage): IssuedKey => ({ id: Number(key.id), secret: key.secret, prefix: key.prefix, last4: key.last4, mode: key.mode as KeyMode, scopes: key.scopes.filter(isScope) });

export class GatewayKeys {
  constructor(private readonly gateway: GatewayClient) {}

  /** The organisation's name and slug, or undefined when there is none with the id. */
  async organisation(id: number): Promise<{ id: number; name: string; slug: string } | undefined> {
    try {
      const found = await this.gateway.getOrganisation({ organisation: { case: 'id', value: BigInt(id) } }, operatorContext());
      return { id: Number(found.id), name: found.name, slug: found.slug };
    } catch (error) {
      if (error instanceof ApiError && error.code === 'resource_missing') return undefined;
      throw error;
    }
  }

  async listKeys(organisationId: number): Promise<ListedKey[]> {
    return (await this.gateway.listApiKeys({}, operatorContext(organisationId))).data.map(listed);
  }

  /** Everything, the allowlist included, is checked before the key is written: a refused key leaves nothing behind. */
  async issueKey(options: { organisationId: number; name: string; mode: KeyMode; scopes: string[]; ipAllowlist?: string; rateLimit?: number | null }): Promise<IssuedKey> {
    const { organisationId, rateLimit, ipAllowlist, ...key } = options;
    return issued(await this.gateway.issueApiKey({ ...key, ipAllowlist: ipAllowlist ?? '', rateLimit: rateLimit ?? undefined }, operatorContext(organisationId)));
  }

  async rollKey(organisationId: number, keyId: number, graceHours: number): Promise<IssuedKey & { oldKeyExpiresAt: Date }> {
    const rolled = await this.gateway.rollApiKey({ id: BigInt(keyId), graceHours }, operatorContext(organisationId));
    return { ...issued(rolled), oldKeyExpiresAt: new Date(rolled.oldKeyExpiresAt!) };
  }

  async revokeKey(organisationId: number, keyId: number): Promise<void> {
    await this.gateway.revokeApiKey({ id: BigInt(keyId) }, operatorContext(organisationId));
  }

  /** The allowlist as the gateway keeps it (normalised CIDR ranges). */
  async setAllowlist(organisationId: number, keyId: number, allowlist: string): Promise<string[]> {
    return (await this.gateway.setApiKeyAllowlist({ id: BigInt(keyId), ipAllowlist: allowlist }, operatorContext(organisationId))).ipAllowlist;
  }

  /** A custom per-minute limit, or null for the mode's default. */
  async setRateLimit(organisationId: number, keyId: number, limit: number | null): Promise<void> {
    await this.gateway.setApiKeyRateLimit({ id: BigInt(keyId), rateLimit: limit ?? undefined }, operatorContext(organisationId));
  }
}
