-- Up Migration
-- Published rows are pruned by age (outbox/retention.ts, D365). Rows are
-- appended in created_at order, so a BRIN index (a few pages for millions
-- of rows, next to nothing per insert) finds the old ones without reading
-- the table.
CREATE INDEX IF NOT EXISTS outbox_created_brin ON outbox USING brin (created_at) WITH (autosummarize = on);

-- Down Migration
DROP INDEX outbox_created_brin;
