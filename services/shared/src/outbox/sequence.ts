/**
 * Per-object ordering of events (decisions D264–D268). Delivery order is not
 * guaranteed, so every event names the object it is about, that object's
 * `sequence` (1, 2, 3, … over the events written about it, assigned in the
 * emitting transaction) and its `updated_at`; a receiver keeps the highest
 * sequence it has applied per key and drops anything lower.
 */
import type { PoolClient } from 'pg';
import type { ApiJson } from '../api-json';
import type { DomainEvent, EventOrdering } from '../events';
import { formatTimestamp } from '../format';

/** `ticket:1001` for an object with an id; otherwise the event's partition key (a waitlist release is its event's). */
export function orderingKey(object: ApiJson, partitionKey: string): string {
  if (object !== null && typeof object === 'object' && !Array.isArray(object)) {
    const { object: kind, id } = object as Record<string, ApiJson>;
    if (typeof kind === 'string' && (typeof id === 'string' || typeof id === 'number') && id !== '') return `${kind}:${id}`;
  }
  return partitionKey;
}

/** The object's own `updated_at`; for an object without one, the time the event happened. */
export function orderingUpdatedAt(event: DomainEvent): string {
  const object = event.data.object;
  const own = object !== null && typeof object === 'object' && !Array.isArray(object) ? (object as Record<string, ApiJson>).updated_at : undefined;
  return typeof own === 'string' ? own : formatTimestamp(new Date(event.created * 1000));
}

/**
 * The next sequence of `key`. The upsert locks the key's row until the
 * caller's transaction ends: a concurrent writer of the same object waits
 * and then counts on from the committed value.
 */
export async function nextSequence(client: PoolClient, key: string): Promise<number> {
  const { rows } = await client.query<{ last_sequence: string }>(
    `INSERT INTO outbox_sequences (object_key, last_sequence) VALUES ($1, 1)
     ON CONFLICT (object_key) DO UPDATE SET last_sequence = outbox_sequences.last_sequence + 1
     RETURNING last_sequence`,
    [key],
  );
  return Number(rows[0]!.last_sequence);
}

/** The event with its `ordering`, the next sequence of its object taken in the caller's transaction. */
export async function sequenced(client: PoolClient, event: DomainEvent, partitionKey: string): Promise<DomainEvent> {
  const key = orderingKey(event.data.object, partitionKey);
  const ordering: EventOrdering = { key, sequence: await nextSequence(client, key), updated_at: orderingUpdatedAt(event) };
  return { ...event, ordering };
}
