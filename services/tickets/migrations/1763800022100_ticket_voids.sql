-- Up Migration
-- A void (an operator's action) keeps why and when, and whether its ticket's
-- stock still has to go back to the pool: the void commits here first, then
-- inventory restocks it, and a recovery loop finishes what a crash left.
ALTER TABLE tickets
  ADD COLUMN void_reason     text,
  ADD COLUMN voided_at       timestamptz,
  ADD COLUMN restock_pending boolean NOT NULL DEFAULT false;
CREATE INDEX tickets_restock_pending_idx ON tickets (voided_at) WHERE restock_pending;

-- Down Migration
DROP INDEX tickets_restock_pending_idx;
ALTER TABLE tickets DROP COLUMN restock_pending, DROP COLUMN voided_at, DROP COLUMN void_reason;
