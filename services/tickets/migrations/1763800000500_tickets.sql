-- Up Migration
-- One row per admission. `id` is the partner's stable key; `barcode` is what
-- the QR code encodes (unguessable, rotates on transfer, never a key).
CREATE TABLE tickets (
  id                  bigserial PRIMARY KEY,
  organisation_id     bigint NOT NULL,
  barcode             text NOT NULL UNIQUE,
  -- Null for comps. With `position` it makes issuing for an order idempotent.
  order_id            uuid,
  position            integer,
  event_id            bigint NOT NULL,
  ticket_type_id      bigint NOT NULL,
  pool_id             bigint NOT NULL,
  ticket_type_name    text NOT NULL,
  attendee_first_name text,
  attendee_last_name  text,
  attendee_email      text,
  price_cents         bigint NOT NULL CHECK (price_cents >= 0),
  status              text NOT NULL DEFAULT 'valid' CHECK (status IN ('valid', 'checked_in', 'refunded', 'void')),
  comp                boolean NOT NULL DEFAULT false,
  seat_label          text,
  checked_in_at       timestamptz,
  created_at          timestamptz NOT NULL DEFAULT now(),
  updated_at          timestamptz NOT NULL DEFAULT now(),
  UNIQUE (order_id, position),
  CHECK ((order_id IS NULL) = (position IS NULL))
);
CREATE INDEX tickets_order_idx ON tickets (order_id) WHERE order_id IS NOT NULL;
CREATE INDEX tickets_event_idx ON tickets (organisation_id, event_id, id);

-- Down Migration
DROP TABLE tickets;
