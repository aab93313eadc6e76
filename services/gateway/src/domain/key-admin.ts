/** Operator actions on organisations and keys (the dashboard's job, run from partnerctl). */
import { ApiError, type KeyMode } from '@partner-api/shared';
import type { KeyRepository } from '../storage/key-repository';
import { displayParts, generateSecret, hashSecret, SCOPES, type Scope } from './api-keys';

export interface IssuedKey {
  id: number;
  /** Shown once; only its hash is kept. */
  secret: string;
  prefix: string;
  last4: string;
  mode: KeyMode;
  scopes: Scope[];
}

export class KeyAdmin {
  constructor(private readonly keys: KeyRepository) {}

  createOrganisation(name: string, slug: string) {
    return this.keys.createOrganisation(name, slug);
  }

  async issueKey(options: {
    organisationId: number;
    name: string;
    mode: KeyMode;
    scopes: readonly string[];
    ipAllowlist?: string[];
    rateLimit?: number | null;
  }): Promise<IssuedKey> {
    const scopes = [...new Set(options.scopes)];
    const unknown = scopes.filter((scope) => !(SCOPES as readonly string[]).includes(scope));
    if (scopes.length === 0 || unknown.length > 0) {
      throw new ApiError('parameter_invalid', `Scopes must be a non-empty subset of: ${SCOPES.join(', ')}.`, 'scopes');
    }
    const secret = generateSecret(options.mode);
    const { prefix, last4 } = displayParts(secret);
    const id = await this.keys.insertKey({
      organisationId: options.organisationId,
      name: options.name,
      mode: options.mode,
      secretHash: hashSecret(secret),
      prefix,
      last4,
      scopes,
      ipAllowlist: options.ipAllowlist ?? [],
      rateLimit: options.rateLimit ?? null,
    });
    return { id, secret, prefix, last4, mode: options.mode, scopes: scopes as Scope[] };
  }
}
