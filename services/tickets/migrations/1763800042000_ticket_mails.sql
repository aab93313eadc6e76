-- Up Migration
-- The emails that put tickets in their holders' hands (D410–D416): an
-- order's tickets to its buyer (queued from `order.completed`, once per
-- order), a resend of them (dashboard, partnerctl), and a transfer's two
-- emails (the new attendee's ticket with its new code, and a note to the
-- previous attendee), queued in the transfer's own transaction. A loop sends
-- what is due at least once; `next_attempt_at` doubles as the lease of a
-- send in progress, so a sender that dies mid-send leaves the row due again.
-- What a message says is composed when it is sent, from the tickets as they
-- are then (a ticket refunded meanwhile is not mailed).
CREATE TABLE ticket_mails (
  id               bigserial PRIMARY KEY,
  organisation_id  bigint NOT NULL,
  kind             text NOT NULL CHECK (kind IN ('order', 'order_resend', 'transfer_received', 'transfer_moved')),
  -- One row per reason to mail: `order:<id>`, `resend:<id>:<n>`, `transfer:<ticket>:<new barcode>:received|moved`.
  dedupe_key       text NOT NULL UNIQUE,
  order_id         text,
  ticket_id        bigint REFERENCES tickets (id),
  -- For a transfer: the code the new attendee was given (a later transfer makes the email moot).
  barcode          text,
  recipient        text NOT NULL,
  recipient_name   text,
  -- Who asked for a resend (the member's email or `partnerctl`), for the record.
  requested_by     text,
  state            text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'sent', 'failed', 'skipped')),
  attempts         integer NOT NULL DEFAULT 0,
  next_attempt_at  timestamptz NOT NULL DEFAULT now(),
  last_error       text,
  sent_at          timestamptz,
  created_at       timestamptz NOT NULL DEFAULT now(),
  CHECK ((kind IN ('order', 'order_resend')) = (order_id IS NOT NULL)),
  CHECK ((kind IN ('transfer_received', 'transfer_moved')) = (ticket_id IS NOT NULL))
);
CREATE INDEX ticket_mails_due_idx ON ticket_mails (next_attempt_at) WHERE state = 'pending';
CREATE INDEX ticket_mails_order_idx ON ticket_mails (organisation_id, order_id, created_at) WHERE order_id IS NOT NULL;
CREATE INDEX ticket_mails_failed_idx ON ticket_mails (organisation_id, created_at DESC) WHERE state = 'failed';

-- Down Migration
DROP TABLE ticket_mails;
