-- Up Migration
-- Retention finds finished attempts by age (D365). A BRIN index (a few
-- pages for millions of rows, next to nothing per insert) instead of
-- reading the whole table every minute in every process; attempts are
-- written in created_at order, so old ones sit on old pages.
CREATE INDEX IF NOT EXISTS deliveries_created_brin ON deliveries USING brin (created_at) WITH (autosummarize = on);

-- Down Migration
DROP INDEX deliveries_created_brin;
