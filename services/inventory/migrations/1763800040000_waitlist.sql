-- Up Migration
-- Waiting lists: customers who asked for tickets of a sold-out pool, in join
-- order (the id). Stock that comes back while someone waits is reserved for
-- the list in Redis (`{ev:<id>}:wl-reserve:<pool>`) and offered here as an
-- ordinary hold `waitlist:<entry id>`, written in the same transaction that
-- marks the entry offered.
CREATE TABLE waitlist_entries (
  id                bigserial PRIMARY KEY,
  organisation_id   bigint NOT NULL,
  event_id          bigint NOT NULL REFERENCES events (id),
  pool_id           bigint NOT NULL REFERENCES pools (id),
  ticket_type_id    bigint NOT NULL REFERENCES ticket_types (id),
  email             text NOT NULL,
  quantity          integer NOT NULL CHECK (quantity > 0),
  state             text NOT NULL DEFAULT 'waiting' CHECK (state IN ('waiting', 'offered', 'purchased', 'lapsed')),
  hold_id           text UNIQUE REFERENCES holds (id),
  offered_quantity  integer CHECK (offered_quantity > 0),
  offered_at        timestamptz,
  -- Set once Redis has taken the offer's tickets out of the reserve.
  taken_at          timestamptz,
  created_at        timestamptz NOT NULL DEFAULT now(),
  updated_at        timestamptz NOT NULL DEFAULT now()
);
-- One live entry per email and event: joining again returns it.
CREATE UNIQUE INDEX waitlist_entries_live_email_idx ON waitlist_entries (event_id, lower(email)) WHERE state IN ('waiting', 'offered');
CREATE INDEX waitlist_entries_waiting_idx ON waitlist_entries (pool_id, id) WHERE state = 'waiting';
CREATE INDEX waitlist_entries_offered_idx ON waitlist_entries (pool_id) WHERE state = 'offered';
CREATE INDEX waitlist_entries_event_idx ON waitlist_entries (event_id, id);

-- Down Migration
DROP TABLE waitlist_entries;
