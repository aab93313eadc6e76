-- Up Migration
-- GET /events/{id}/attendees pages through an event's tickets by id on
-- tickets_event_idx (organisation_id, event_id, id). Its two filters get
-- their own indexes, so neither reads the whole event to fill a page:
-- `checked_in=true` walks only the checked-in tickets, in id order; a sync
-- with `updated_since` reads only the tickets changed since then (and sorts
-- that handful by id).
CREATE INDEX tickets_event_checked_in_idx ON tickets (organisation_id, event_id, id) WHERE status = 'checked_in';
CREATE INDEX tickets_event_updated_idx ON tickets (organisation_id, event_id, updated_at);

-- Down Migration
DROP INDEX tickets_event_updated_idx;
DROP INDEX tickets_event_checked_in_idx;
