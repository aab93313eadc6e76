-- Up Migration
-- How far the catalog clock has moved events' updated_at for what time alone
-- changes (an event ending, a sales window opening or closing): one row.
CREATE TABLE catalog_clock (
  id        boolean PRIMARY KEY DEFAULT true CHECK (id),
  ticked_at timestamptz NOT NULL
);
-- The clock's range reads, one index per time it watches.
CREATE INDEX events_ended_at_idx ON events ((coalesce(ends_at, starts_at)));
CREATE INDEX events_on_sale_at_idx ON events (on_sale_at) WHERE on_sale_at IS NOT NULL;
CREATE INDEX ticket_types_sale_starts_idx ON ticket_types (sale_starts_at) WHERE sale_starts_at IS NOT NULL;
CREATE INDEX ticket_types_sale_ends_idx ON ticket_types (sale_ends_at) WHERE sale_ends_at IS NOT NULL;

-- Down Migration
DROP INDEX ticket_types_sale_ends_idx;
DROP INDEX ticket_types_sale_starts_idx;
DROP INDEX events_on_sale_at_idx;
DROP INDEX events_ended_at_idx;
DROP TABLE catalog_clock;
