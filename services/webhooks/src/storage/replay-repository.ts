/**
 * Replays in the webhooks schema: the replay row and, in the same
 * transaction, one scheduled delivery per missed event (D282).
 */
import type { PoolClient } from '@partner-api/shared';

export interface ReplayRow {
  id: string;
  endpoint_id: string;
  since: Date;
  queued: number;
  created_at: Date;
}

export class ReplayRepository {
  /** The endpoint's row, locked until the transaction ends: replays of one endpoint run one after the other. */
  async lockEndpoint(client: PoolClient, organisationId: number, endpointId: string): Promise<{ enabled: boolean; mode: string } | undefined> {
    const { rows } = await client.query<{ enabled: boolean; mode: string }>(
      'SELECT enabled, mode FROM endpoints WHERE id = $1 AND organisation_id = $2 FOR UPDATE',
      [endpointId, organisationId],
    );
    return rows[0];
  }

  /**
   * Records a replay and schedules, due now, the next attempt of every
   * event the endpoint missed: of its organisation and mode, of a type it
   * subscribes to, created at or after `since`, stored while the endpoint
   * existed, and with no delivery to it that succeeded or is still on its
   * way. Each queued attempt continues the event's attempt count and
   * starts a new round of the retry schedule.
   */
  async queueMissed(client: PoolClient, organisationId: number, endpointId: string, since: Date): Promise<ReplayRow> {
    const { rows } = await client.query<ReplayRow>(
      'INSERT INTO replays (organisation_id, endpoint_id, since, queued) VALUES ($1, $2, $3, 0) RETURNING *',
      [organisationId, endpointId, since],
    );
    const replay = rows[0]!;
    const { rowCount } = await client.query(
      `INSERT INTO deliveries (endpoint_id, event_id, event_type, attempt, first_attempt, replay_id, status, due_at)
       SELECT e.id, ev.id, ev.type, next.attempt, next.attempt, $3, 'scheduled', now()
         FROM endpoints e
         JOIN events ev ON ev.organisation_id = e.organisation_id AND ev.livemode = (e.mode = 'live')
                       AND (ev.type = ANY (e.event_types) OR '*' = ANY (e.event_types))
                       AND ev.created_at >= $2 AND ev.received_at >= e.created_at
         CROSS JOIN LATERAL (
           SELECT COALESCE(max(d.attempt), 0) + 1 AS attempt FROM deliveries d
            WHERE d.endpoint_id = e.id AND d.event_id = ev.id AND NOT d.manual) next
        WHERE e.id = $1
          AND NOT EXISTS (
            SELECT 1 FROM deliveries d
             WHERE d.endpoint_id = e.id AND d.event_id = ev.id AND NOT d.manual AND d.status IN ('succeeded', 'scheduled', 'sending'))`,
      [endpointId, since, replay.id],
    );
    const { rows: counted } = await client.query<ReplayRow>('UPDATE replays SET queued = $2 WHERE id = $1 RETURNING *', [replay.id, rowCount ?? 0]);
    return counted[0]!;
  }
}
