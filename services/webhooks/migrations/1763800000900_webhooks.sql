-- Up Migration
-- Webhook endpoints of an organisation. The signing secret must be kept in
-- the clear (HMAC needs it); only the create response ever shows it. A
-- rotated secret keeps signing beside the new one until
-- previous_secret_expires_at (24 hours).
CREATE TABLE endpoints (
  id                          bigserial PRIMARY KEY,
  organisation_id             bigint NOT NULL,
  url                         text NOT NULL CHECK (length(url) <= 2048),
  description                 text CHECK (length(description) <= 255),
  event_types                 text[] NOT NULL CHECK (cardinality(event_types) >= 1),
  mode                        text NOT NULL CHECK (mode IN ('live', 'test')),
  enabled                     boolean NOT NULL DEFAULT true,
  consecutive_failures        integer NOT NULL DEFAULT 0,
  -- When the current run of failures began (null while healthy): the 3-day auto-disable rule.
  failing_since               timestamptz,
  disabled_at                 timestamptz,
  disabled_reason             text,
  last_success_at             timestamptz,
  last_failure_at             timestamptz,
  secret                      text NOT NULL,
  previous_secret             text,
  previous_secret_expires_at  timestamptz,
  created_at                  timestamptz NOT NULL DEFAULT now(),
  updated_at                  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX endpoints_organisation_idx ON endpoints (organisation_id, id);

-- Every domain event read from Kafka, once (the id is the dedupe key), with
-- the body exactly as the emitting service wrote it: deliveries send these bytes.
CREATE TABLE events (
  id               text PRIMARY KEY,
  organisation_id  bigint NOT NULL,
  type             text NOT NULL,
  livemode         boolean NOT NULL,
  payload          text NOT NULL,
  received_at      timestamptz NOT NULL DEFAULT now()
);

-- One row per attempt to deliver one event to one endpoint. Attempt 1 is
-- written with the event (fan-out); a failed attempt writes the next one,
-- due by the retry schedule. Workers claim due rows with FOR UPDATE SKIP
-- LOCKED and a lease: a worker that dies mid-send leaves a row whose lease
-- runs out, and another worker sends it again (receivers dedupe on the
-- event id). Test sends are recorded here too (`manual`, never retried).
CREATE TABLE deliveries (
  id              bigserial PRIMARY KEY,
  endpoint_id     bigint NOT NULL REFERENCES endpoints (id) ON DELETE CASCADE,
  event_id        text NOT NULL,
  event_type      text NOT NULL,
  attempt         integer NOT NULL CHECK (attempt >= 1),
  manual          boolean NOT NULL DEFAULT false,
  status          text NOT NULL CHECK (status IN ('scheduled', 'sending', 'succeeded', 'failed', 'cancelled')),
  due_at          timestamptz NOT NULL,
  lease_until     timestamptz,
  response_status integer,
  duration_ms     integer NOT NULL DEFAULT 0,
  error           text,
  next_retry_at   timestamptz,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now()
);
-- A retried or re-consumed event never schedules the same attempt twice.
CREATE UNIQUE INDEX deliveries_attempt_idx ON deliveries (endpoint_id, event_id, attempt) WHERE NOT manual;
CREATE INDEX deliveries_due_idx ON deliveries (due_at) WHERE status IN ('scheduled', 'sending');

-- Down Migration
DROP TABLE deliveries;
DROP TABLE events;
DROP TABLE endpoints;
