-- Up Migration
-- The last `ordering.sequence` written for each object (`ticket:1001`,
-- `order:<uuid>`, `event:42`, …). The emitting transaction bumps its
-- object's row and holds it until commit, so the writers of one object get
-- distinct values in the order they commit; a row is touched only when an
-- event about its object is written, never by a sale that emits nothing.
CREATE TABLE outbox_sequences (
  object_key     text   PRIMARY KEY,
  last_sequence  bigint NOT NULL
);

-- Down Migration
DROP TABLE outbox_sequences;
