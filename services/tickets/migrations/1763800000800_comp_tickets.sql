-- Up Migration
-- POST /comp_tickets. A batch row is written before inventory takes the
-- stock (state `taking`), and turns `issued` in the transaction that writes
-- the tickets, their `ticket.issued` events and their guest emails. A batch
-- left `taking` (the process died, or issuing failed) gives its stock back
-- (`returned`): by the request that failed, or by the recovery loop.
-- `id` is the batch id the gateway derives from the API key and the
-- Idempotency-Key, so a retried request finds its batch.
CREATE TABLE comp_batches (
  id               text PRIMARY KEY,
  organisation_id  bigint NOT NULL,
  event_id_or_slug text NOT NULL,
  ticket_type_id   bigint NOT NULL,
  pool_id          bigint,
  requested        integer NOT NULL CHECK (requested BETWEEN 1 AND 50),
  -- The guests that got no ticket: [{"email": "...", "reason": "exceeds_stock"}]
  failed           json NOT NULL DEFAULT '[]',
  -- Internal note for the organiser's records; never shown on tickets, events or emails.
  note             text,
  state            text NOT NULL CHECK (state IN ('taking', 'issued', 'returned')),
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX comp_batches_taking_idx ON comp_batches (updated_at) WHERE state = 'taking';

ALTER TABLE tickets ADD COLUMN comp_batch_id text REFERENCES comp_batches (id);
CREATE INDEX tickets_comp_batch_idx ON tickets (comp_batch_id, id) WHERE comp_batch_id IS NOT NULL;

-- One email per comp ticket, written with the ticket and sent by a loop
-- (at least once; the Message-ID is the ticket's, so a mail system can
-- drop a repeat). `next_attempt_at` doubles as the lease of a send in
-- progress: a sender that dies mid-send leaves the row due again.
CREATE TABLE comp_emails (
  ticket_id        bigint PRIMARY KEY REFERENCES tickets (id),
  organisation_id  bigint NOT NULL,
  event_title      text NOT NULL,
  event_starts_at  timestamptz NOT NULL,
  state            text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'sent', 'failed', 'skipped')),
  attempts         integer NOT NULL DEFAULT 0,
  next_attempt_at  timestamptz NOT NULL DEFAULT now(),
  last_error       text,
  sent_at          timestamptz,
  created_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX comp_emails_due_idx ON comp_emails (next_attempt_at) WHERE state = 'pending';

-- Down Migration
DROP TABLE comp_emails;
DROP INDEX tickets_comp_batch_idx;
ALTER TABLE tickets DROP COLUMN comp_batch_id;
DROP TABLE comp_batches;
