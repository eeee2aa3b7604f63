-- Where a person is notified of a new ask: a webhook (url, its signing
-- secret) or an ntfy topic (url, its optional access token). The secret
-- is kept as is: the hub needs it to sign or to authenticate.

CREATE TABLE notify_targets (
  id {{ID}},
  person_id BIGINT NOT NULL REFERENCES people(id),
  kind TEXT NOT NULL,
  url TEXT NOT NULL,
  secret TEXT NOT NULL,
  created_at BIGINT NOT NULL
);
CREATE INDEX notify_targets_person ON notify_targets (person_id);
