-- Up Migration
-- A refund is recorded before the card processor hears of it; its id is the
-- processor's idempotency key, so a retry or the recovery loop asks for the
-- same refund again and never for a second one. pending: recorded, the
-- processor may or may not have it; processed: the processor confirmed it;
-- completed: tickets refunded, stock returned, order updated with
-- order.refunded; failed: the processor refused it (its tickets freed).
CREATE TABLE refunds (
  id                  uuid PRIMARY KEY,
  order_id            uuid NOT NULL REFERENCES orders (id),
  organisation_id     bigint NOT NULL,
  ticket_ids          bigint[] NOT NULL,
  -- [{"pool_id": "12", "quantity": 2}]: what goes back on sale when restock is set.
  lines               jsonb NOT NULL,
  amount_cents        bigint NOT NULL CHECK (amount_cents >= 0),
  reason              text,
  restock             boolean NOT NULL,
  status              text NOT NULL CHECK (status IN ('pending', 'processed', 'completed', 'failed')),
  processor_reference text,
  failure_message     text,
  created_at          timestamptz NOT NULL DEFAULT now(),
  updated_at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX refunds_order_idx ON refunds (order_id);
CREATE INDEX refunds_unfinished_idx ON refunds (updated_at) WHERE status IN ('pending', 'processed');

-- Each ticket belongs to one refund at most: the claim is what stops two
-- refunds of the same ticket, whatever runs concurrently. A failed refund
-- drops its claims.
CREATE TABLE refund_tickets (
  ticket_id  bigint PRIMARY KEY,
  refund_id  uuid NOT NULL REFERENCES refunds (id)
);
CREATE INDEX refund_tickets_refund_idx ON refund_tickets (refund_id);

-- Down Migration
DROP TABLE refund_tickets;
DROP TABLE refunds;
