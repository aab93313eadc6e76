/**
 * Appends an event to the service's outbox inside the caller's transaction,
 * so the event exists exactly when the state change does. The active trace
 * context is kept with it and travels on as Kafka headers. The event gets
 * its object's next sequence here, in the same transaction (sequence.ts).
 */
import { create, type DescMessage, type MessageInitShape } from '@bufbuild/protobuf';
import type { PoolClient } from 'pg';
import { toApiJson, type ApiJson } from '../api-json';
import { buildEvent, type DomainEvent, type EventType } from '../events';
import { currentTraceCarrier } from '../telemetry/messaging';
import { sequenced } from './sequence';

export async function appendToOutbox(client: PoolClient, event: DomainEvent, partitionKey: string): Promise<DomainEvent> {
  const headers = currentTraceCarrier();
  const written = await sequenced(client, event, partitionKey);
  await client.query(
    `INSERT INTO outbox (event_id, event_type, partition_key, payload, headers)
     VALUES ($1, $2, $3, $4::json, $5::jsonb)`,
    [written.id, written.type, partitionKey, JSON.stringify(written), JSON.stringify(headers)],
  );
  return written;
}

export interface Emission<S extends DescMessage> {
  type: EventType;
  organisationId: number;
  /** The object the event carries, as the API renders it. */
  schema: S;
  view: MessageInitShape<S>;
  /** Events of one key reach Kafka, and endpoints, in order (`order:<id>`, `ticket:<id>`, `event:<id>`). */
  partitionKey: string;
  /** Fields beside `data.object` (`previous_attendee_email`, `threshold`, …). */
  extra?: Record<string, ApiJson>;
}

/**
 * One domain event about `view`, appended in the caller's transaction. Only
 * live work emits: a test key's request writes nothing, so `livemode` is true.
 */
export function emitEvent<S extends DescMessage>(client: PoolClient, emission: Emission<S>): Promise<DomainEvent> {
  const object = toApiJson(emission.schema, create(emission.schema, emission.view));
  const event = buildEvent(emission.type, { organisationId: emission.organisationId, livemode: true }, object, emission.extra);
  return appendToOutbox(client, event, emission.partitionKey);
}
