/**
 * Events of a kept page of GET /events as the API's JSON, rendered once
 * (toApiJson of the Event message, exactly what the gateway would write)
 * and cut around the two values that move with live availability,
 * `sold_out` and `ticketing.tickets_remaining`; each call fills those in
 * from Redis and joins the pieces. A page polled many times a second is
 * then one availability read and a string join, not 25 messages rendered,
 * encoded, decoded and serialised again.
 */
import { create } from '@bufbuild/protobuf';
import { gen, toApiJson } from '@partner-api/shared';
import type { PoolRow, EventRow } from '../storage/catalog-repository';
import { liveStock, type Availability, type EventInit } from './catalog-view';

const SOLD_OUT = '\u0000sold_out\u0000';
const REMAINING = '\u0000tickets_remaining\u0000';
const MARKS = [JSON.stringify(SOLD_OUT), JSON.stringify(REMAINING)];

export interface RenderedEvent {
  /** The JSON around the live values: one piece more than `slots`. */
  pieces: string[];
  /** Which live value goes after each piece but the last. */
  slots: Array<'sold_out' | 'tickets_remaining'>;
  event: Pick<EventRow, 'marked_sold_out'>;
  pools: Pick<PoolRow, 'id'>[];
}

/** Renders an event's view (its live values are replaced) into pieces. */
export function renderEvent(view: EventInit, event: Pick<EventRow, 'marked_sold_out'>, pools: Pick<PoolRow, 'id'>[]): RenderedEvent {
  const json = toApiJson(gen.inventory.EventSchema, create(gen.inventory.EventSchema, view));
  json.sold_out = SOLD_OUT;
  (json.ticketing as Record<string, unknown>).tickets_remaining = REMAINING;
  const pieces: string[] = [];
  const slots: RenderedEvent['slots'] = [];
  let rest = JSON.stringify(json);
  for (;;) {
    const found = MARKS.map((mark) => rest.indexOf(mark));
    const next = found[0]! >= 0 && (found[1]! < 0 || found[0]! < found[1]!) ? 0 : found[1]! >= 0 ? 1 : -1;
    if (next < 0) break;
    pieces.push(rest.slice(0, found[next]));
    slots.push(next === 0 ? 'sold_out' : 'tickets_remaining');
    rest = rest.slice(found[next]! + MARKS[next]!.length);
  }
  pieces.push(rest);
  return { pieces, slots, event, pools };
}

/** The event's JSON with its live values from `availability`. */
export function fillEvent(rendered: RenderedEvent, availability: Availability): string {
  const { soldOut, remaining } = liveStock(rendered.event, rendered.pools, availability);
  let out = rendered.pieces[0]!;
  rendered.slots.forEach((slot, index) => {
    out += slot === 'sold_out' ? String(soldOut) : remaining === undefined ? 'null' : String(remaining);
    out += rendered.pieces[index + 1]!;
  });
  return out;
}
