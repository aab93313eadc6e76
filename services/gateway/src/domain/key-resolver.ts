/**
 * Keys by secret hash, cached in the process with the version they were
 * read at. A cached copy is used only while the admission script agrees it
 * is current (see storage/key-admission.ts), and re-read at least every
 * minute in any case, so PostgreSQL is off the per-request path.
 */
import type { KeyAdmission } from '../storage/key-admission';
import type { KeyRepository } from '../storage/key-repository';
import type { StoredKey } from './api-keys';

export interface ResolvedKey {
  /** Null for a hash no key has: unknown keys are cached too. */
  key: StoredKey | null;
  version: string;
  loadedAt: number;
  /** True when this copy came from the cache rather than from PostgreSQL just now. */
  cached: boolean;
}

const MAX_AGE_MS = 60_000;
const MAX_ENTRIES = 50_000;

export class KeyResolver {
  private readonly cache = new Map<string, ResolvedKey>();

  constructor(
    private readonly keys: KeyRepository,
    private readonly admission: KeyAdmission,
    private readonly clock: () => number = Date.now,
  ) {}

  /** The cached copy while it is young enough, without I/O (the per-request case). */
  cached(hashHex: string): ResolvedKey | undefined {
    const cached = this.cache.get(hashHex);
    return cached && this.clock() - cached.loadedAt < MAX_AGE_MS ? cached : undefined;
  }

  /** Reads the key from PostgreSQL and caches it. */
  async load(hash: Buffer, hashHex: string): Promise<ResolvedKey> {
    // Version first: a change that commits after this read bumps past it.
    const version = await this.admission.version(hashHex);
    const entry = { key: (await this.keys.findByHash(hash)) ?? null, version, loadedAt: this.clock(), cached: false };
    if (this.cache.size >= MAX_ENTRIES) this.cache.delete(this.cache.keys().next().value!);
    // The cache holds its own copy marked as such, made once per load rather than per request.
    this.cache.set(hashHex, { ...entry, cached: true });
    return entry;
  }

  /** Whether a cached copy is still the key's current version (asked before refusing on it). */
  async isCurrent(hashHex: string, resolved: ResolvedKey): Promise<boolean> {
    return !resolved.cached || (await this.admission.version(hashHex)) === resolved.version;
  }

  forget(hashHex: string): void {
    this.cache.delete(hashHex);
  }
}
