-- Up Migration
-- An offer's email is due once Redis has taken its tickets; a loop sends
-- what is due (at least once, with a stable Message-ID), retrying failures
-- until the offer ends.
ALTER TABLE waitlist_entries
  ADD COLUMN email_due_at     timestamptz,
  ADD COLUMN email_attempts   integer NOT NULL DEFAULT 0,
  ADD COLUMN email_last_error text,
  ADD COLUMN emailed_at       timestamptz;
CREATE INDEX waitlist_entries_email_due_idx ON waitlist_entries (email_due_at) WHERE state = 'offered' AND emailed_at IS NULL;

-- Down Migration
DROP INDEX waitlist_entries_email_due_idx;
ALTER TABLE waitlist_entries DROP COLUMN email_due_at, DROP COLUMN email_attempts, DROP COLUMN email_last_error, DROP COLUMN emailed_at;
