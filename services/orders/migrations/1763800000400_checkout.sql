-- Up Migration
CREATE TABLE coupons (
  id               bigserial PRIMARY KEY,
  organisation_id  bigint NOT NULL,
  event_id         bigint NOT NULL,
  -- Codes are case-insensitive for customers: stored upper-case.
  code             text NOT NULL CHECK (code = upper(code)),
  kind             text NOT NULL CHECK (kind IN ('percent', 'amount')),
  -- Percent: whole percent 1-100. Amount: cents off the order.
  value            bigint NOT NULL CHECK (value > 0),
  valid_from       timestamptz,
  valid_until      timestamptz,
  max_uses         integer CHECK (max_uses IS NULL OR max_uses > 0),
  used             integer NOT NULL DEFAULT 0,
  created_at       timestamptz NOT NULL DEFAULT now(),
  UNIQUE (event_id, code),
  CHECK (kind <> 'percent' OR value <= 100)
);

CREATE TABLE checkout_sessions (
  id               uuid PRIMARY KEY,
  organisation_id  bigint NOT NULL,
  event_id         bigint NOT NULL,
  status           text NOT NULL CHECK (status IN ('open', 'expired', 'completed')),
  -- [{ticket_type_id, pool_id, name, quantity, unit_price, unit_booking_fee, total}] as strings
  items            jsonb NOT NULL,
  customer         jsonb,
  coupon_id        bigint REFERENCES coupons (id),
  subtotal_cents   bigint NOT NULL,
  total_fees_cents bigint NOT NULL,
  discount_cents   bigint NOT NULL,
  total_cents      bigint NOT NULL CHECK (total_cents = subtotal_cents - discount_cents),
  metadata         jsonb NOT NULL DEFAULT '{}'::jsonb,
  expires_at       timestamptz NOT NULL,
  order_id         uuid,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX checkout_sessions_org_idx ON checkout_sessions (organisation_id, created_at);

-- Down Migration
DROP TABLE checkout_sessions;
DROP TABLE coupons;
