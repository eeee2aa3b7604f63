-- The hub's schema, for SQLite and PostgreSQL alike. {{ID}} is the one
-- dialect difference (an auto-increment primary key). Times are Unix
-- milliseconds; JSON is kept as text, byte for byte as written.

CREATE TABLE people (
  id {{ID}},
  name TEXT NOT NULL UNIQUE,
  created_at BIGINT NOT NULL
);

CREATE TABLE agents (
  id {{ID}},
  person_id BIGINT NOT NULL REFERENCES people(id),
  name TEXT NOT NULL UNIQUE,
  token_hash TEXT NOT NULL UNIQUE,
  deadline_seconds BIGINT,
  created_at BIGINT NOT NULL,
  revoked_at BIGINT
);

CREATE TABLE asks (
  id TEXT PRIMARY KEY,
  agent_id BIGINT NOT NULL REFERENCES agents(id),
  session_id TEXT NOT NULL,
  tool_call_id TEXT NOT NULL,
  arguments TEXT NOT NULL,
  call TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('pending', 'replied', 'withdrawn', 'expired')),
  reply TEXT,
  replied_by TEXT,
  replied_where TEXT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  expires_at BIGINT,
  UNIQUE (agent_id, session_id, tool_call_id)
);
CREATE INDEX asks_pending_expiry ON asks (expires_at) WHERE state = 'pending';
CREATE INDEX asks_agent_state ON asks (agent_id, state, created_at);

CREATE TABLE events (
  id {{ID}},
  ask_id TEXT NOT NULL REFERENCES asks(id),
  kind TEXT NOT NULL CHECK (kind IN ('asked', 'replied', 'withdrawn', 'expired')),
  who TEXT NOT NULL,
  "where" TEXT NOT NULL,
  at BIGINT NOT NULL,
  detail TEXT
);
CREATE INDEX events_ask ON events (ask_id, id);
CREATE INDEX events_at ON events (at);

CREATE TABLE signin_links (
  token_hash TEXT PRIMARY KEY,
  person_id BIGINT NOT NULL REFERENCES people(id),
  expires_at BIGINT NOT NULL,
  used_at BIGINT
);

CREATE TABLE web_sessions (
  token_hash TEXT PRIMARY KEY,
  person_id BIGINT NOT NULL REFERENCES people(id),
  csrf_token TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL
);

CREATE TABLE outbox (
  id {{ID}},
  kind TEXT NOT NULL,
  payload TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_at BIGINT NOT NULL,
  delivered_at BIGINT
);
CREATE INDEX outbox_due ON outbox (next_at) WHERE delivered_at IS NULL;
