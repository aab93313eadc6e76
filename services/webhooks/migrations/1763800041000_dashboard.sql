-- Up Migration
-- The organiser dashboard's delivery log and endpoint health.
-- sent_at: when an attempt was taken to be sent (claimed, or the moment a
-- test send went out); the health's 24-hour figures count attempts by it.
-- resend: the round this attempt belongs to was queued by a resend from the
-- dashboard (carried to its retries, as replay_id is).
ALTER TABLE deliveries ADD COLUMN sent_at timestamptz;
ALTER TABLE deliveries ADD COLUMN resend boolean NOT NULL DEFAULT false;
-- Attempts finished before this column existed: their send time is their end less their duration (only the last day matters to the health).
UPDATE deliveries SET sent_at = updated_at - duration_ms * interval '1 millisecond'
 WHERE status IN ('succeeded', 'failed') AND updated_at > now() - interval '1 day';
CREATE INDEX deliveries_endpoint_sent_idx ON deliveries (endpoint_id, sent_at) WHERE sent_at IS NOT NULL AND NOT manual;

-- One row per endpoint the health rules disabled, written in the transaction
-- that disabled it, until the dashboard has emailed the organisation's owners
-- and admins (the webhooks service does not know who they are). Claimed with
-- a lease: a claimer that dies leaves it to be claimed again (at least once).
-- No foreign key: deleting the endpoint afterwards does not take the notice.
CREATE TABLE disable_notices (
  id               bigserial PRIMARY KEY,
  organisation_id  bigint NOT NULL,
  endpoint_id      bigint NOT NULL,
  endpoint_url     text NOT NULL,
  mode             text NOT NULL,
  reason           text NOT NULL,
  disabled_at      timestamptz NOT NULL,
  claims           integer NOT NULL DEFAULT 0,
  claimed_until    timestamptz,
  sent_at          timestamptz,
  created_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX disable_notices_unsent_idx ON disable_notices (id) WHERE sent_at IS NULL;

-- Down Migration
DROP TABLE disable_notices;
DROP INDEX deliveries_endpoint_sent_idx;
ALTER TABLE deliveries DROP COLUMN resend, DROP COLUMN sent_at;
