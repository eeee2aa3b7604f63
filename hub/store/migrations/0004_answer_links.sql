-- Answer links (an email's option links, an ntfy button, a chat bot's
-- buttons): each is a capability for one option of one ask, kept as the
-- hex SHA-256 of its token only. A link answers while its ask is pending
-- and shows the ask's outcome after; "via" says which notification
-- carried it, for the event log ("from an email link").
--
-- A notification target's settings beyond its URL and secret (an email
-- target's recipient and sender, an ntfy target's answer buttons) are one
-- JSON object, so a new kind of target needs no migration.

CREATE TABLE answer_links (
  token_hash TEXT PRIMARY KEY,
  ask_id TEXT NOT NULL REFERENCES asks(id),
  option_index INTEGER NOT NULL,
  via TEXT NOT NULL,
  created_at BIGINT NOT NULL
);
CREATE INDEX answer_links_ask ON answer_links (ask_id);

ALTER TABLE notify_targets ADD COLUMN settings TEXT NOT NULL DEFAULT '{}'
