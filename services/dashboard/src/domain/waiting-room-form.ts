/**
 * An event's waiting room as its dashboard form shows and sends it. The
 * opening time is typed on the event's own clock (a `datetime-local`
 * field, no offset), as organisers announce on-sales; orders takes an ISO
 * 8601 time with its offset, which Luxon works out for the event's zone.
 * Orders checks the rate's number itself (SetWaitingRoom).
 */
import { DateTime } from 'luxon';
import { DashboardError } from './dashboard-error';

/** What SetWaitingRoom takes, but the event. */
export interface WaitingRoomChange {
  enabled: boolean;
  opensAt: string;
  rate: string;
}

export interface WaitingRoomFields {
  enabled?: string;
  opens_at?: string;
  rate_kind?: string;
  rate?: string;
}

const LOCAL_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/;
const FIELD_FORMAT = "yyyy-MM-dd'T'HH:mm";

/** The form's fields checked, the opening time given its offset on `zone`'s clock; a refusal names its field. */
export function waitingRoomChange(form: WaitingRoomFields, zone: string): WaitingRoomChange {
  if (form.enabled !== 'on' && form.enabled !== 'off') throw new DashboardError(400, 'Choose whether the queue is on or off.', 'enabled');
  const typed = (form.opens_at ?? '').trim();
  if (!LOCAL_TIME.test(typed)) throw new DashboardError(400, 'Enter when the queue opens: a date and a time on the event’s clock.', 'opens_at');
  const opensAt = DateTime.fromISO(typed, { zone });
  if (!opensAt.isValid) throw new DashboardError(400, 'Enter when the queue opens: a date and a time on the event’s clock.', 'opens_at');
  // A time the clocks skip (the hour they go forward) would be moved silently: asked for again instead.
  if (opensAt.toFormat(FIELD_FORMAT) !== typed.slice(0, 16)) {
    throw new DashboardError(400, `${typed.replace('T', ' ')} does not happen in ${zone}: the clocks go forward then. Choose another time.`, 'opens_at');
  }
  let rate = 'automatic';
  if (form.rate_kind === 'fixed') {
    rate = (form.rate ?? '').trim();
    if (!rate) throw new DashboardError(400, 'Enter how many visitors a second the queue admits, or choose automatic.', 'rate');
  } else if (form.rate_kind !== 'automatic') {
    throw new DashboardError(400, 'Choose an automatic or a fixed rate.', 'rate');
  }
  return { enabled: form.enabled === 'on', opensAt: opensAt.toISO({ suppressMilliseconds: true })!, rate };
}

/** An ISO time as the form's `datetime-local` field shows it on `zone`'s clock; empty when there is none. */
export function localFieldValue(iso: string | undefined, zone: string): string {
  if (!iso) return '';
  const at = DateTime.fromISO(iso, { zone });
  return at.isValid ? at.toFormat(FIELD_FORMAT) : '';
}
