-- When the asking program is known to wait for an ask up to (ms since the
-- epoch): each long poll sets it to its own end. The inbox says "the
-- asking program is not waiting now" once that is more than a minute
-- past. One small UPDATE a poll, no index: it is read with the ask.

ALTER TABLE asks ADD COLUMN waiting_until BIGINT;
