-- Up Migration
-- A seated pool is bound to one version of its event's venue plan, to all of
-- its sections (sections NULL) or to some of them; its capacity is their seats.
CREATE TABLE pool_seating (
  pool_id       bigint PRIMARY KEY REFERENCES pools (id),
  venue_id      bigint NOT NULL,
  plan_version  integer NOT NULL,
  sections      text[] CHECK (sections IS NULL OR cardinality(sections) > 0),
  created_at    timestamptz NOT NULL DEFAULT now(),
  FOREIGN KEY (venue_id, plan_version) REFERENCES seating_plans (venue_id, version)
);

-- The durable state of every taken seat of an event: held by a hold id until
-- expires_at (then free again), sold (by the hold that sold it) or blocked.
-- One row per event and seat: two holds or two sales of one seat cannot both
-- be recorded. Redis keeps the live copy ({ev:<id>}:seats), rebuilt from here.
CREATE TABLE seat_holds (
  event_id    bigint NOT NULL REFERENCES events (id),
  seat_id     text NOT NULL,
  state       text NOT NULL CHECK (state IN ('held', 'sold', 'blocked')),
  hold_id     text,
  expires_at  timestamptz,
  updated_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (event_id, seat_id),
  CHECK ((state = 'held') = (expires_at IS NOT NULL)),
  CHECK ((state = 'blocked') = (hold_id IS NULL))
);
CREATE INDEX seat_holds_hold_idx ON seat_holds (event_id, hold_id) WHERE hold_id IS NOT NULL;

-- Down Migration
DROP TABLE seat_holds;
DROP TABLE pool_seating;
