/**
 * API key rules: shape, hashing, display parts and the checks a key must
 * pass before a request may use it.
 */
import { hash } from 'node:crypto';
import { ApiError, randomBase62, type KeyMode } from '@partner-api/shared';

export { SCOPES, type Scope } from '@partner-api/shared';

export const KEY_SHAPE = /^svc_(live|test)_[0-9A-Za-z]{32}$/;
/** The marker plus four characters: enough to tell keys apart, useless to an attacker. */
const PREFIX_LENGTH = 'svc_live_'.length + 4;

export const DEFAULT_RATE_LIMIT: Record<KeyMode, number> = { live: 120, test: 60 };

export function generateSecret(mode: KeyMode): string {
  return `svc_${mode}_${randomBase62(32)}`;
}

export function hashSecret(secret: string): Buffer {
  return hash('sha256', secret, 'buffer');
}

export function displayParts(secret: string): { prefix: string; last4: string } {
  return { prefix: secret.slice(0, PREFIX_LENGTH), last4: secret.slice(-4) };
}

export interface StoredKey {
  id: number;
  organisationId: number;
  organisationName: string;
  organisationSlug: string;
  name: string;
  mode: KeyMode;
  prefix: string;
  scopes: string[];
  ipAllowlist: string[];
  rateLimit: number | null;
  revokedAt: Date | null;
  expiresAt: Date | null;
}

/** Revoked beats expired: a key rolled with grace 0 is revoked at once. */
export function assertKeyUsable(key: StoredKey, now: Date): void {
  if (key.revokedAt && key.revokedAt.getTime() <= now.getTime()) {
    throw new ApiError('api_key_revoked', 'This API key has been revoked.');
  }
  if (key.expiresAt && key.expiresAt.getTime() <= now.getTime()) {
    throw new ApiError('api_key_expired', 'This API key was rolled and its grace period has ended.');
  }
}

export const rateLimitFor = (key: StoredKey): number => key.rateLimit ?? DEFAULT_RATE_LIMIT[key.mode];
