-- Up Migration

-- The people of an organisation who use the dashboard. An email signs in to
-- one organisation (D321): it is unique across members still present.
CREATE TABLE members (
  id               bigserial PRIMARY KEY,
  organisation_id  bigint NOT NULL,
  email            text NOT NULL CHECK (email = lower(email) AND length(email) <= 254),
  name             text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  role             text NOT NULL CHECK (role IN ('owner', 'admin', 'developer', 'door_staff')),
  -- argon2id in its PHC string; null until the invitation is accepted (or for link-only sign-in).
  password_hash    text,
  failed_sign_ins  integer NOT NULL DEFAULT 0,
  locked_until     timestamptz,
  invited_by       bigint REFERENCES members (id) ON DELETE SET NULL,
  created_at       timestamptz NOT NULL DEFAULT now(),
  joined_at        timestamptz,
  removed_at       timestamptz
);
CREATE UNIQUE INDEX members_email ON members (email) WHERE removed_at IS NULL;
CREATE INDEX members_organisation ON members (organisation_id, role) WHERE removed_at IS NULL;

-- Invitations and emailed one-time sign-in links: only a hash of the token is kept.
CREATE TABLE member_tokens (
  token_hash  bytea PRIMARY KEY,
  member_id   bigint NOT NULL REFERENCES members (id) ON DELETE CASCADE,
  purpose     text NOT NULL CHECK (purpose IN ('invitation', 'sign_in')),
  expires_at  timestamptz NOT NULL,
  used_at     timestamptz,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX member_tokens_member ON member_tokens (member_id);

-- Signed-in sessions: the cookie holds the token, the table its hash.
CREATE TABLE sessions (
  token_hash    bytea PRIMARY KEY,
  member_id     bigint NOT NULL REFERENCES members (id) ON DELETE CASCADE,
  -- Which data the member is looking at (live or test), switched in the header.
  mode          text NOT NULL DEFAULT 'live' CHECK (mode IN ('live', 'test')),
  ip            text,
  user_agent    text,
  created_at    timestamptz NOT NULL DEFAULT now(),
  last_seen_at  timestamptz NOT NULL DEFAULT now(),
  expires_at    timestamptz NOT NULL,
  ended_at      timestamptz
);
CREATE INDEX sessions_member ON sessions (member_id) WHERE ended_at IS NULL;

-- Every action taken in the dashboard, and every sign-in attempt: who, what, when, from where.
CREATE TABLE audit_events (
  id               bigserial PRIMARY KEY,
  organisation_id  bigint,
  member_id        bigint REFERENCES members (id) ON DELETE SET NULL,
  actor            text NOT NULL,
  action           text NOT NULL,
  target           text,
  detail           jsonb NOT NULL DEFAULT '{}',
  ip               text,
  user_agent       text,
  created_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX audit_events_organisation ON audit_events (organisation_id, id DESC);

-- Down Migration
DROP TABLE audit_events;
DROP TABLE sessions;
DROP TABLE member_tokens;
DROP TABLE members;
