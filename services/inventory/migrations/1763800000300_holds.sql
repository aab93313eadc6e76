-- Up Migration
-- The durable record of every hold: Redis holds the live counters, this
-- table is what they are rebuilt from (capacity - sold - live holds) and
-- what the sweeper consults before returning an expired hold to stock.
CREATE TABLE holds (
  id               text PRIMARY KEY,
  organisation_id  bigint NOT NULL,
  event_id         bigint NOT NULL REFERENCES events (id),
  -- [{"pool_id": "12", "quantity": 3}], one entry per pool
  pools            jsonb NOT NULL,
  state            text NOT NULL CHECK (state IN ('held', 'released', 'committed')),
  expires_at       timestamptz NOT NULL,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX holds_live_event_idx ON holds (event_id) WHERE state = 'held';
CREATE INDEX holds_live_expiry_idx ON holds (expires_at) WHERE state = 'held';

-- Down Migration
DROP TABLE holds;
