/**
 * Appends an event to the service's outbox inside the caller's transaction,
 * so the event exists exactly when the state change does. The active trace
 * context is kept with it and travels on as Kafka headers.
 */
import { currentTraceCarrier } from '../telemetry/messaging';
import type { PoolClient } from 'pg';
import type { DomainEvent } from '../events';

export async function appendToOutbox(client: PoolClient, event: DomainEvent, partitionKey: string): Promise<void> {
  const headers = currentTraceCarrier();
  await client.query(
    `INSERT INTO outbox (event_id, event_type, partition_key, payload, headers)
     VALUES ($1, $2, $3, $4::json, $5::jsonb)`,
    [event.id, event.type, partitionKey, JSON.stringify(event), JSON.stringify(headers)],
  );
}
