-- Up Migration
-- A venue's seating plans (the document of @partner-api/shared's seating-plan
-- schema), one row per version: an import adds the next version, a version is
-- never changed. `digest` (SHA-256 of the stored document) lets an import of
-- the latest version's document again answer that version instead of adding one.
CREATE TABLE seating_plans (
  venue_id    bigint NOT NULL REFERENCES venues (id),
  version     integer NOT NULL CHECK (version >= 1),
  document    json NOT NULL,
  digest      text NOT NULL,
  seat_count  integer NOT NULL CHECK (seat_count > 0),
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (venue_id, version)
);

-- Down Migration
DROP TABLE seating_plans;
