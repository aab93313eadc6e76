/**
 * Idempotency records in Redis, per API key: a short-lived "running" marker
 * taken with SET NX (so exactly one request with a key runs), replaced by
 * the finished response for 24 hours. A process that dies mid-request
 * leaves only the marker, which expires, so a retry then runs again.
 */
import type { RedisClient } from '@partner-api/shared';

export const REMEMBER_MS = 24 * 60 * 60 * 1000;
/** Longer than any request may run (the gateway's gRPC deadline is 10 s). */
export const RUNNING_MARKER_MS = 60_000;

export interface StoredResponse {
  status: number;
  contentType: string | null;
  /** Base64 of the exact bytes sent. */
  body: string;
}

export type IdempotencyRecord =
  | { state: 'running'; fingerprint: string }
  | { state: 'done'; fingerprint: string; response: StoredResponse };

export class IdempotencyStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly runningMarkerMs = RUNNING_MARKER_MS,
  ) {}

  private key(apiKeyId: number, idempotencyKeyHash: string): string {
    return `gw:idem:{${apiKeyId}}:${idempotencyKeyHash}`;
  }

  /** Claims the key for this request; returns the existing record when someone already has. */
  async claim(apiKeyId: number, keyHash: string, fingerprint: string): Promise<IdempotencyRecord | undefined> {
    const key = this.key(apiKeyId, keyHash);
    const marker: IdempotencyRecord = { state: 'running', fingerprint };
    const claimed = await this.redis.set(key, JSON.stringify(marker), 'PX', this.runningMarkerMs, 'NX');
    if (claimed === 'OK') return undefined;
    const existing = await this.redis.get(key);
    // Expired between the two calls: treat as ours on the retry the caller makes.
    return existing ? (JSON.parse(existing) as IdempotencyRecord) : { state: 'running', fingerprint };
  }

  async complete(apiKeyId: number, keyHash: string, fingerprint: string, response: StoredResponse): Promise<void> {
    const record: IdempotencyRecord = { state: 'done', fingerprint, response };
    await this.redis.set(this.key(apiKeyId, keyHash), JSON.stringify(record), 'PX', REMEMBER_MS);
  }

  /** A 5xx is not remembered: the retry runs again. */
  async release(apiKeyId: number, keyHash: string): Promise<void> {
    await this.redis.del(this.key(apiKeyId, keyHash));
  }
}
