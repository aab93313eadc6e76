/**
 * The virtual waiting room in front of an event's sale pages (web,
 * storefront, embed): while an organiser has it on, a visitor reaches the
 * sale only with a pass, which they get when their turn in the queue comes.
 * The queue itself lives in WaitingRoomStore (Redis); this module decides
 * what a visit means for the visitor and signs their pass.
 */
import { randomBytes, randomInt } from 'node:crypto';
import { ApiError } from '@partner-api/shared';
import type { RoomKey, RoomStats, StoredSettings, VisitLimits, WaitingRoomStore } from '../storage/waiting-room-store';
import type { PassCheck, WaitingRoomPasses } from './waiting-room-passes';

export interface WaitingRoomPolicy extends VisitLimits {
  /** How long a pass opens the sale pages after admission. */
  passSeconds: number;
}

/** What a visitor is shown. */
export type Visit =
  | { kind: 'open' }
  | { kind: 'before_opening'; opensAt: Date }
  | { kind: 'waiting'; position: number; waitSeconds: number }
  | { kind: 'admitted'; pass: string; expiresAt: Date }
  | { kind: 'turn_lapsed' }
  | { kind: 'address_limited' };

export interface SettingsInput {
  enabled: boolean;
  /** ISO 8601 with an offset, e.g. 2026-12-01T09:00:00+11:00. */
  opensAt: string;
  /** Visitors admitted per second, or "automatic". */
  rate: string;
}

/** Most visitors a fixed rate may admit per second: past this a queue admits nobody in a useful order. */
export const MAX_RATE = 10_000;
/** The pre-opening scores: 47 random bits, a tie between two visitors next to impossible (randomInt takes up to 2^48 − 1). */
const RANDOM_SPAN = 2 ** 47;

/** A new browser's id: 128 random bits, the visitor's identity in the queue and in their pass. */
export const newVisitorId = (): string => randomBytes(16).toString('base64url');
export const isVisitorId = (value: unknown): value is string => typeof value === 'string' && /^[A-Za-z0-9_-]{22}$/.test(value);

/** Checks what an organiser sent; bad input is a parameter error naming the field. */
export function parseSettings(input: SettingsInput): StoredSettings {
  const opensAtMs = Date.parse(input.opensAt);
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(input.opensAt) || Number.isNaN(opensAtMs)) {
    throw new ApiError('parameter_invalid', 'opens_at must be an ISO 8601 time with an offset, e.g. 2026-12-01T09:00:00+11:00.', 'opens_at');
  }
  let rate = 0;
  if (input.rate !== 'automatic') {
    rate = Number(input.rate);
    if (!/^[0-9]+(\.[0-9]+)?$/.test(input.rate) || !(rate > 0) || rate > MAX_RATE) {
      throw new ApiError('parameter_invalid', `rate must be "automatic" or a number of visitors per second above 0 and at most ${MAX_RATE}.`, 'rate');
    }
  }
  return { enabled: input.enabled, opensAtMs, rate };
}

export class WaitingRoom {
  constructor(
    private readonly store: WaitingRoomStore,
    private readonly passes: WaitingRoomPasses,
    readonly policy: WaitingRoomPolicy,
  ) {}

  configure(room: RoomKey, settings: StoredSettings): Promise<void> {
    return this.store.configure(room, settings, this.policy.automaticRate);
  }

  stats(room: RoomKey): Promise<RoomStats> {
    return this.store.stats(room, this.policy.automaticRate);
  }

  /** One page load of a visitor without a valid pass: one Redis round trip. */
  async visit(room: RoomKey, visitorId: string, address: string): Promise<Visit> {
    const outcome = await this.store.visit(room, visitorId, address, randomInt(RANDOM_SPAN) / RANDOM_SPAN, this.policy);
    switch (outcome.kind) {
      case 'off':
        return { kind: 'open' };
      case 'before_opening':
        return { kind: 'before_opening', opensAt: new Date(Date.now() + outcome.opensInMs) };
      case 'waiting':
        return { kind: 'waiting', position: outcome.position, waitSeconds: Math.ceil(outcome.position / outcome.rate) };
      case 'admitted': {
        const expiresAtMs = outcome.admittedAtMs + this.policy.passSeconds * 1000;
        // A pass that expired sends its visitor to the back: their turn was used.
        if (expiresAtMs <= Date.now()) return { kind: 'turn_lapsed' };
        return { kind: 'admitted', pass: this.passes.issue({ ...room, visitorId, expiresAtMs }), expiresAt: new Date(expiresAtMs) };
      }
      default:
        return outcome;
    }
  }

  rejoin(room: RoomKey, visitorId: string): Promise<boolean> {
    return this.store.rejoin(room, visitorId);
  }

  checkPass(room: RoomKey, pass: string | undefined, visitorId: string | undefined): PassCheck {
    return this.passes.check(pass, { ...room, visitorId });
  }

  markUsed(room: RoomKey, visitorId: string): Promise<boolean> {
    return this.store.markUsed(room, visitorId);
  }
}
