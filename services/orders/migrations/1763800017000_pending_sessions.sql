-- Up Migration
-- A session is recorded as `pending` before its hold is asked for, so a hold
-- whose answer is lost (inventory or orders died) is always known here: a
-- retry with the same Idempotency-Key (the same session id) finishes it, and
-- the sweeper releases it once the session is older than the bound and marks
-- it `failed`. Both states are internal: the API shows only open, expired and
-- completed sessions. A pending row learns its event and totals with its hold.
ALTER TABLE checkout_sessions DROP CONSTRAINT checkout_sessions_status_check;
ALTER TABLE checkout_sessions ADD CONSTRAINT checkout_sessions_status_check
  CHECK (status IN ('pending', 'failed', 'open', 'expired', 'completed'));
ALTER TABLE checkout_sessions ALTER COLUMN event_id DROP NOT NULL;
ALTER TABLE checkout_sessions ADD CONSTRAINT checkout_sessions_event_known
  CHECK (event_id IS NOT NULL OR status IN ('pending', 'failed'));
CREATE INDEX checkout_sessions_pending_idx ON checkout_sessions (updated_at) WHERE status = 'pending';

-- Down Migration
DROP INDEX checkout_sessions_pending_idx;
DELETE FROM checkout_sessions WHERE status IN ('pending', 'failed');
ALTER TABLE checkout_sessions DROP CONSTRAINT checkout_sessions_event_known;
ALTER TABLE checkout_sessions ALTER COLUMN event_id SET NOT NULL;
ALTER TABLE checkout_sessions DROP CONSTRAINT checkout_sessions_status_check;
ALTER TABLE checkout_sessions ADD CONSTRAINT checkout_sessions_status_check CHECK (status IN ('open', 'expired', 'completed'));
