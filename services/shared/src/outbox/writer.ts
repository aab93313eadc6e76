/**
 * Appends an event to the service's outbox inside the caller's transaction,
 * so the event exists exactly when the state change does. The active trace
 * context is kept with it and travels on as Kafka headers. The event gets
 * its object's next sequence here, in the same transaction (sequence.ts).
 */
import { currentTraceCarrier } from '../telemetry/messaging';
import type { PoolClient } from 'pg';
import type { DomainEvent } from '../events';
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
