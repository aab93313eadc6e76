-- Up Migration
-- Events written in the same transaction as the state change they describe;
-- the relay publishes them to Kafka and stamps published_at.
CREATE TABLE outbox (
  id             bigserial PRIMARY KEY,
  event_id       text        NOT NULL UNIQUE,
  event_type     text        NOT NULL,
  partition_key  text        NOT NULL,
  -- json (not jsonb) keeps the body's key order exactly as written.
  payload        json        NOT NULL,
  headers        jsonb       NOT NULL DEFAULT '{}'::jsonb,
  created_at     timestamptz NOT NULL DEFAULT now(),
  published_at   timestamptz
);
CREATE INDEX outbox_unpublished_idx ON outbox (id) WHERE published_at IS NULL;

-- Down Migration
DROP TABLE outbox;
