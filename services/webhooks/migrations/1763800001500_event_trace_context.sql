-- Up Migration
-- The trace context an event arrived in (its Kafka process span, as W3C
-- headers): every delivery attempt of the event, retries included, is
-- traced as a child of it, in the trace of the request that wrote it.
ALTER TABLE events ADD COLUMN trace_context jsonb NOT NULL DEFAULT '{}'::jsonb;

-- Down Migration
ALTER TABLE events DROP COLUMN trace_context;
