-- Up Migration
-- Venues are platform-wide; an organisation sees the ones its events use.
CREATE TABLE venues (
  id           bigserial PRIMARY KEY,
  name         text NOT NULL,
  slug         text NOT NULL UNIQUE,
  line1        text NOT NULL,
  line2        text,
  locality     text NOT NULL,
  state        text NOT NULL,
  postal_code  text NOT NULL,
  country      char(2) NOT NULL,
  lat          double precision,
  lng          double precision,
  url          text,
  phone        text,
  removed_at   timestamptz,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE events (
  id               bigserial PRIMARY KEY,
  organisation_id  bigint NOT NULL,
  slug             text NOT NULL UNIQUE,
  title            text NOT NULL,
  summary          text,
  description      text,
  -- The stored workflow status; `ended` is derived from the clock when read.
  status           text NOT NULL CHECK (status IN ('draft', 'pending_review', 'published', 'cancelled')),
  starts_at        timestamptz NOT NULL,
  ends_at          timestamptz,
  timezone         text NOT NULL,
  doors            text,
  image_url        text,
  on_sale_at       timestamptz,
  venue_id         bigint REFERENCES venues (id),
  categories       text[] NOT NULL DEFAULT '{}',
  marked_sold_out  boolean NOT NULL DEFAULT false,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  search           tsvector GENERATED ALWAYS AS (
                     setweight(to_tsvector('simple', coalesce(title, '')), 'A') ||
                     setweight(to_tsvector('simple', coalesce(summary, '')), 'B')) STORED
);
CREATE INDEX events_org_starts_idx ON events (organisation_id, starts_at, id);
CREATE INDEX events_org_updated_idx ON events (organisation_id, updated_at, id);
CREATE INDEX events_search_idx ON events USING gin (search);

-- A pool is a capacity that one or more ticket types sell from; NULL capacity = uncapped.
CREATE TABLE pools (
  id          bigserial PRIMARY KEY,
  event_id    bigint NOT NULL REFERENCES events (id),
  name        text NOT NULL,
  capacity    integer CHECK (capacity IS NULL OR capacity >= 0),
  sold        integer NOT NULL DEFAULT 0 CHECK (sold >= 0),
  created_at  timestamptz NOT NULL DEFAULT now(),
  CHECK (capacity IS NULL OR sold <= capacity)
);
CREATE INDEX pools_event_idx ON pools (event_id);

CREATE TABLE ticket_types (
  id                 bigserial PRIMARY KEY,
  event_id           bigint NOT NULL REFERENCES events (id),
  name               text NOT NULL,
  description        text,
  -- Fee-inclusive price and the booking-fee part of it, in cents.
  price_cents        bigint NOT NULL CHECK (price_cents >= 0),
  booking_fee_cents  bigint NOT NULL DEFAULT 0 CHECK (booking_fee_cents >= 0 AND booking_fee_cents <= price_cents),
  gst_applies        boolean NOT NULL DEFAULT true,
  min_per_order      integer NOT NULL DEFAULT 1 CHECK (min_per_order >= 1),
  max_per_order      integer NOT NULL DEFAULT 10 CHECK (max_per_order >= min_per_order),
  sale_starts_at     timestamptz,
  sale_ends_at       timestamptz,
  hidden             boolean NOT NULL DEFAULT false,
  seated             boolean NOT NULL DEFAULT false,
  sort_order         integer NOT NULL DEFAULT 0,
  created_at         timestamptz NOT NULL DEFAULT now(),
  updated_at         timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX ticket_types_event_idx ON ticket_types (event_id);

-- Most types sell from one pool; some from several (the first is the default shown).
CREATE TABLE ticket_type_pools (
  ticket_type_id  bigint NOT NULL REFERENCES ticket_types (id),
  pool_id         bigint NOT NULL REFERENCES pools (id),
  position        integer NOT NULL DEFAULT 0,
  PRIMARY KEY (ticket_type_id, pool_id)
);

-- Down Migration
DROP TABLE ticket_type_pools;
DROP TABLE ticket_types;
DROP TABLE pools;
DROP TABLE events;
DROP TABLE venues;
