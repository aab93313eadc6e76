-- Up Migration
-- Set when a payment for the session succeeds: from then on the session
-- never reads `expired`, even while its order is still being completed.
ALTER TABLE checkout_sessions ADD COLUMN paid_at timestamptz;

-- Every attempt to pay a session, including declines. The attempt id is
-- the payment provider's idempotency key, so a retried charge never
-- charges twice.
CREATE TABLE payment_attempts (
  id               uuid PRIMARY KEY,
  session_id       uuid NOT NULL REFERENCES checkout_sessions (id),
  organisation_id  bigint NOT NULL,
  provider         text NOT NULL,
  status           text NOT NULL CHECK (status IN ('processing', 'succeeded', 'declined', 'refunded', 'abandoned')),
  amount_cents     bigint NOT NULL CHECK (amount_cents >= 0),
  reference        text,
  decline_code     text,
  decline_message  text,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX payment_attempts_session_idx ON payment_attempts (session_id);
CREATE UNIQUE INDEX payment_attempts_one_success ON payment_attempts (session_id) WHERE status = 'succeeded';
CREATE INDEX payment_attempts_pending_idx ON payment_attempts (updated_at) WHERE status IN ('processing', 'succeeded');

CREATE TABLE orders (
  id                  uuid PRIMARY KEY,
  organisation_id     bigint NOT NULL,
  event_id            bigint NOT NULL,
  status              text NOT NULL CHECK (status IN ('completed', 'partially_refunded', 'refunded')),
  customer            jsonb NOT NULL,
  -- The session's lines, kept for receipts and refunds.
  items               jsonb NOT NULL,
  subtotal_cents      bigint NOT NULL,
  total_fees_cents    bigint NOT NULL,
  discount_cents      bigint NOT NULL,
  total_cents         bigint NOT NULL CHECK (total_cents = subtotal_cents - discount_cents),
  refunded_cents      bigint NOT NULL DEFAULT 0,
  payment_method      text NOT NULL CHECK (payment_method IN ('stripe', 'paypal', 'free', 'comp', 'other')),
  checkout_session_id uuid UNIQUE REFERENCES checkout_sessions (id),
  sales_channel       text NOT NULL CHECK (sales_channel IN ('api', 'embed', 'storefront', 'web')),
  channel_origin      text,
  metadata            jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at          timestamptz NOT NULL DEFAULT now(),
  completed_at        timestamptz NOT NULL DEFAULT now(),
  updated_at          timestamptz NOT NULL DEFAULT now()
);
-- GET /orders: newest first, optionally for one event, optionally changed since.
CREATE INDEX orders_newest_idx ON orders (organisation_id, created_at DESC, id DESC);
CREATE INDEX orders_event_newest_idx ON orders (organisation_id, event_id, created_at DESC, id DESC);
CREATE INDEX orders_updated_idx ON orders (organisation_id, updated_at);

-- Down Migration
DROP TABLE orders;
DROP TABLE payment_attempts;
ALTER TABLE checkout_sessions DROP COLUMN paid_at;
