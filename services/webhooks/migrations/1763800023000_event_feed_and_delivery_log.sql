-- Up Migration
-- The event feed (GET /webhook_events) reads an organisation's events of
-- the last 30 days in the order they were stored. created_at is the
-- event's own `created`; stored_xid is the storing transaction's id: the
-- feed lists only rows whose transaction is older than every transaction
-- still running, so a row that commits late never lands behind a cursor
-- already handed out (D281). stored_seq keeps the order of the events one
-- transaction stored (Kafka's order within a chunk).
ALTER TABLE events ADD COLUMN created_at timestamptz;
UPDATE events SET created_at = to_timestamp((payload::jsonb ->> 'created')::bigint) WHERE payload::jsonb ? 'created';
UPDATE events SET created_at = received_at WHERE created_at IS NULL;
ALTER TABLE events ALTER COLUMN created_at SET NOT NULL, ALTER COLUMN created_at SET DEFAULT now();
ALTER TABLE events ADD COLUMN stored_xid xid8 NOT NULL DEFAULT pg_current_xact_id();
ALTER TABLE events ADD COLUMN stored_seq bigint GENERATED ALWAYS AS IDENTITY;
CREATE INDEX events_feed_idx ON events (organisation_id, livemode, stored_xid, stored_seq);
-- Retention pruning walks events by age.
CREATE INDEX events_received_idx ON events (received_at);

-- A replay: one request to re-send an endpoint what it missed since a time.
CREATE TABLE replays (
  id               bigserial PRIMARY KEY,
  organisation_id  bigint NOT NULL,
  endpoint_id      bigint NOT NULL REFERENCES endpoints (id) ON DELETE CASCADE,
  since            timestamptz NOT NULL,
  queued           integer NOT NULL,
  created_at       timestamptz NOT NULL DEFAULT now()
);

-- The delivery log: why an attempt failed, which replay queued it, and the
-- attempt number its round of retries began at (a replay continues the
-- attempt count, Service-Delivery-Attempt, but gets the retry schedule anew).
ALTER TABLE deliveries ADD COLUMN failure_reason text CHECK (failure_reason IN
  ('timeout', 'connection_refused', 'connection_error', 'tls', 'address_refused', 'status_3xx', 'status_4xx', 'status_5xx'));
ALTER TABLE deliveries ADD COLUMN replay_id bigint REFERENCES replays (id) ON DELETE SET NULL;
ALTER TABLE deliveries ADD COLUMN first_attempt integer NOT NULL DEFAULT 1;
CREATE INDEX deliveries_endpoint_log_idx ON deliveries (endpoint_id, id);
CREATE INDEX deliveries_event_idx ON deliveries (event_id);

-- Down Migration
DROP INDEX deliveries_event_idx;
DROP INDEX deliveries_endpoint_log_idx;
ALTER TABLE deliveries DROP COLUMN first_attempt, DROP COLUMN replay_id, DROP COLUMN failure_reason;
DROP TABLE replays;
DROP INDEX events_received_idx;
DROP INDEX events_feed_idx;
ALTER TABLE events DROP COLUMN stored_seq, DROP COLUMN stored_xid, DROP COLUMN created_at;
