/**
 * A waiting room's pass: what an admitted visitor's browser shows to reach
 * an event's sale pages while its queue is on. An HMAC-SHA256 (Node's
 * crypto) over the organisation, the event, the browser's visitor id and
 * the expiry, so a pass opens one event, in one browser, for a while.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export interface PassClaims {
  organisationId: number;
  eventId: string;
  visitorId: string;
  /** Milliseconds since the epoch. */
  expiresAtMs: number;
}

/** Why a pass does not open a page; `valid` when it does. */
export type PassCheck = 'valid' | 'missing' | 'forged' | 'expired' | 'other_event' | 'other_browser';

const VERSION = 'p1';

export class WaitingRoomPasses {
  constructor(private readonly secret: string) {}

  issue(claims: PassClaims): string {
    const payload = [VERSION, claims.organisationId, claims.eventId, claims.visitorId, claims.expiresAtMs].join('.');
    return `${payload}.${this.sign(payload)}`;
  }

  /** Checks the signature first: nothing else in a pass is believed without it. */
  check(pass: string | undefined, expected: { organisationId: number; eventId: string; visitorId: string | undefined }, nowMs: number = Date.now()): PassCheck {
    if (!pass) return 'missing';
    const parts = pass.split('.');
    if (parts.length !== 6 || parts[0] !== VERSION) return 'forged';
    const signature = parts.pop()!;
    const given = Buffer.from(signature, 'base64url');
    const wanted = Buffer.from(this.sign(parts.join('.')), 'base64url');
    if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) return 'forged';
    const [, organisationId, eventId, visitorId, expiresAtMs] = parts;
    if (organisationId !== String(expected.organisationId) || eventId !== expected.eventId) return 'other_event';
    if (visitorId !== expected.visitorId) return 'other_browser';
    if (!(Number(expiresAtMs) > nowMs)) return 'expired';
    return 'valid';
  }

  private sign(payload: string): string {
    return createHmac('sha256', this.secret).update(payload).digest('base64url');
  }
}
