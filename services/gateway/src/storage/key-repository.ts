/** Organisations and API keys in the gateway's schema. */
import type { Pool, PoolClient } from '@partner-api/shared';
import type { KeyMode } from '@partner-api/shared';
import type { StoredKey } from '../domain/api-keys';

interface KeyRow {
  id: string;
  organisation_id: string;
  organisation_name: string;
  organisation_slug: string;
  name: string;
  mode: KeyMode;
  prefix: string;
  scopes: string[];
  ip_allowlist: string[];
  rate_limit: number | null;
  revoked_at: Date | null;
  expires_at: Date | null;
}

interface KeyListingRow {
  id: string;
  name: string;
  mode: KeyMode;
  prefix: string;
  last4: string;
  scopes: string[];
  ip_allowlist: string[];
  rate_limit: number | null;
  created_at: Date;
  revoked_at: Date | null;
  expires_at: Date | null;
  replaced_by: string | null;
  /** Written in batches by the gateways (domain/key-usage.ts): within KEY_USAGE_FLUSH_MS of the last request; null if never used. */
  last_used_at: Date | null;
}

/** A key as the dashboard lists it: never the secret. */
export type KeyListing = Omit<KeyListingRow, 'id' | 'replaced_by'> & { id: number; replaced_by: number | null };

export interface OrganisationRow {
  id: number;
  name: string;
  slug: string;
}

type RawOrganisation = Omit<OrganisationRow, 'id'> & { id: string };
const toOrganisation = (row: RawOrganisation): OrganisationRow => ({ id: Number(row.id), name: row.name, slug: row.slug });

const LISTING_COLUMNS = 'id, name, mode, prefix, last4, scopes, ip_allowlist, rate_limit, created_at, revoked_at, expires_at, replaced_by, last_used_at';
const toListing = <Row extends KeyListingRow>(row: Row): Omit<Row, 'id' | 'replaced_by'> & { id: number; replaced_by: number | null } => ({
  ...row,
  id: Number(row.id),
  replaced_by: row.replaced_by === null ? null : Number(row.replaced_by),
});

const toStoredKey = (row: KeyRow): StoredKey => ({
  id: Number(row.id),
  organisationId: Number(row.organisation_id),
  organisationName: row.organisation_name,
  organisationSlug: row.organisation_slug,
  name: row.name,
  mode: row.mode,
  prefix: row.prefix,
  scopes: row.scopes,
  ipAllowlist: row.ip_allowlist,
  rateLimit: row.rate_limit,
  revokedAt: row.revoked_at,
  expiresAt: row.expires_at,
});

export class KeyRepository {
  constructor(private readonly pool: Pool) {}

  async findByHash(secretHash: Buffer): Promise<StoredKey | undefined> {
    const { rows } = await this.pool.query<KeyRow>(
      `SELECT k.id, k.organisation_id, o.name AS organisation_name, o.slug AS organisation_slug, k.name, k.mode,
              k.prefix, k.scopes, k.ip_allowlist, k.rate_limit, k.revoked_at, k.expires_at
         FROM api_keys k JOIN organisations o ON o.id = k.organisation_id
        WHERE k.secret_hash = $1`,
      [secretHash],
    );
    return rows[0] && toStoredKey(rows[0]);
  }

  /** Undefined when the slug is taken. */
  async createOrganisation(name: string, slug: string): Promise<OrganisationRow | undefined> {
    const { rows } = await this.pool.query<{ id: string }>(
      'INSERT INTO organisations (name, slug) VALUES ($1, $2) ON CONFLICT (slug) DO NOTHING RETURNING id',
      [name, slug],
    );
    return rows[0] && { id: Number(rows[0].id), name, slug };
  }

  async findOrganisation(id: number): Promise<OrganisationRow | undefined> {
    const { rows } = await this.pool.query<RawOrganisation>('SELECT id, name, slug FROM organisations WHERE id = $1', [id]);
    return rows[0] && toOrganisation(rows[0]);
  }

  async findOrganisationBySlug(slug: string): Promise<OrganisationRow | undefined> {
    const { rows } = await this.pool.query<RawOrganisation>('SELECT id, name, slug FROM organisations WHERE slug = $1', [slug]);
    return rows[0] && toOrganisation(rows[0]);
  }

  async listOrganisations(): Promise<OrganisationRow[]> {
    const { rows } = await this.pool.query<RawOrganisation>('SELECT id, name, slug FROM organisations ORDER BY id');
    return rows.map(toOrganisation);
  }

  /** Undefined when there is no such organisation. */
  async renameOrganisation(id: number, name: string): Promise<OrganisationRow | undefined> {
    const { rows } = await this.pool.query<RawOrganisation>('UPDATE organisations SET name = $2 WHERE id = $1 RETURNING id, name, slug', [id, name]);
    return rows[0] && toOrganisation(rows[0]);
  }

  async listKeys(organisationId: number): Promise<KeyListing[]> {
    const { rows } = await this.pool.query<KeyListingRow>(`SELECT ${LISTING_COLUMNS} FROM api_keys WHERE organisation_id = $1 ORDER BY id`, [organisationId]);
    return rows.map(toListing);
  }

  async findKey(organisationId: number, keyId: number): Promise<KeyListing | undefined> {
    const { rows } = await this.pool.query<KeyListingRow>(`SELECT ${LISTING_COLUMNS} FROM api_keys WHERE id = $1 AND organisation_id = $2`, [keyId, organisationId]);
    return rows[0] && toListing(rows[0]);
  }

  /** The key row locked for a change, scoped to the organisation. */
  async lockKey(client: PoolClient, organisationId: number, keyId: number): Promise<(KeyListing & { secret_hash: Buffer }) | undefined> {
    const { rows } = await client.query<KeyListingRow & { secret_hash: Buffer }>(
      `SELECT ${LISTING_COLUMNS}, secret_hash FROM api_keys WHERE id = $1 AND organisation_id = $2 FOR UPDATE`,
      [keyId, organisationId],
    );
    return rows[0] && toListing(rows[0]);
  }

  async insertKey(key: {
    organisationId: number;
    name: string;
    mode: KeyMode;
    secretHash: Buffer;
    prefix: string;
    last4: string;
    scopes: string[];
    ipAllowlist: string[];
    rateLimit: number | null;
  }, client: Pick<Pool, 'query'> = this.pool): Promise<number> {
    const { rows } = await client.query<{ id: string }>(
      `INSERT INTO api_keys (organisation_id, name, mode, secret_hash, prefix, last4, scopes, ip_allowlist, rate_limit)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id`,
      [key.organisationId, key.name, key.mode, key.secretHash, key.prefix, key.last4, key.scopes, key.ipAllowlist, key.rateLimit],
    );
    return Number(rows[0]!.id);
  }

  /** The old key of a roll: replaced by `newKeyId`, and in use until `until` (revoked at once when `now`). */
  async replaceKey(client: Pick<Pool, 'query'>, keyId: number, newKeyId: number, until: Date, revokeNow: boolean): Promise<void> {
    await client.query(
      revokeNow ? 'UPDATE api_keys SET revoked_at = $2, replaced_by = $3 WHERE id = $1' : 'UPDATE api_keys SET expires_at = $2, replaced_by = $3 WHERE id = $1',
      [keyId, until, newKeyId],
    );
  }

  /** Revoked from `at`, unless it already was. */
  async revokeKey(client: Pick<Pool, 'query'>, keyId: number, at: Date): Promise<void> {
    await client.query('UPDATE api_keys SET revoked_at = coalesce(revoked_at, $2) WHERE id = $1', [keyId, at]);
  }

  async setKeyLimits(client: Pick<Pool, 'query'>, keyId: number, change: { ip_allowlist: string[] } | { rate_limit: number | null }): Promise<void> {
    if ('ip_allowlist' in change) await client.query('UPDATE api_keys SET ip_allowlist = $2 WHERE id = $1', [keyId, change.ip_allowlist]);
    else await client.query('UPDATE api_keys SET rate_limit = $2 WHERE id = $1', [keyId, change.rate_limit]);
  }
}
