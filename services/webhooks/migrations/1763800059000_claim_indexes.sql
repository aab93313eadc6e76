-- Up Migration
-- A claim reads only what it can take (D364): scheduled attempts by due
-- time and attempts in flight by lease, each as a range that ends at now().
-- One index over both statuses, ordered by due time, could only be walked
-- from its start through every attempt in flight and every retry scheduled
-- for later, on every claim. Built here under a lock on writes: on a large
-- table, build the two indexes CONCURRENTLY by hand before migrating, and
-- this finds them. deliveries_due_idx stays while pods of the release
-- before may still claim with it (migrations are additive); the next
-- release drops it.
CREATE INDEX IF NOT EXISTS deliveries_scheduled_idx ON deliveries (due_at) WHERE status = 'scheduled';
CREATE INDEX IF NOT EXISTS deliveries_lease_idx ON deliveries (lease_until) WHERE status = 'sending';

-- Down Migration
DROP INDEX deliveries_lease_idx;
DROP INDEX deliveries_scheduled_idx;
