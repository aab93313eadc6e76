-- Up Migration
CREATE TABLE organisations (
  id          bigserial PRIMARY KEY,
  name        text NOT NULL,
  slug        text NOT NULL UNIQUE,
  created_at  timestamptz NOT NULL DEFAULT now()
);

-- Secrets are never stored: only a SHA-256 of the key (keys carry 190 bits
-- of randomness, so a fast hash cannot be brute-forced) and display parts.
CREATE TABLE api_keys (
  id               bigserial PRIMARY KEY,
  organisation_id  bigint NOT NULL REFERENCES organisations (id),
  name             text NOT NULL,
  mode             text NOT NULL CHECK (mode IN ('live', 'test')),
  secret_hash      bytea NOT NULL UNIQUE,
  prefix           text NOT NULL,
  last4            text NOT NULL,
  scopes           text[] NOT NULL CHECK (cardinality(scopes) >= 1),
  -- Single addresses and CIDR ranges; empty allows any address.
  ip_allowlist     text[] NOT NULL DEFAULT '{}',
  rate_limit       integer CHECK (rate_limit IS NULL OR rate_limit > 0),
  created_at       timestamptz NOT NULL DEFAULT now(),
  revoked_at       timestamptz,
  -- Set when the key is rolled: it keeps working until then.
  expires_at       timestamptz,
  replaced_by      bigint REFERENCES api_keys (id)
);
CREATE INDEX api_keys_org_idx ON api_keys (organisation_id);

-- Down Migration
DROP TABLE api_keys;
DROP TABLE organisations;
