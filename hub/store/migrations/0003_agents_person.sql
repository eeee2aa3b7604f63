-- A person's asks (the inbox, its wake-ups) are found through the
-- person's agents: without this index a person's pending asks were read
-- by scanning every pending ask of every person.

CREATE INDEX agents_person ON agents (person_id);
