-- The expiry sweep (`expire_due` in src/backend.rs). A message whose event's
-- time-to-live passes while it waits (held by a paused or disabled endpoint,
-- behind an open circuit or a rate limit, or scheduled for a later retry) is
-- ended `expired` then, not when it is next attempted. Each message carries
-- its event's `expires_at` (written with the message), so the sweep reads
-- the live messages due to expire from one partial index: only messages of
-- events with a time-to-live that still wait are in it, so publishes of
-- events without one write nothing to it, and a message leaves it when it
-- ends. Same SQL on both backends.
ALTER TABLE messages ADD COLUMN expires_at BIGINT;
UPDATE messages SET expires_at = (SELECT e.expires_at FROM events e
    WHERE e.tenant_id = messages.tenant_id AND e.environment = messages.environment
      AND e.id = messages.event_id)
WHERE EXISTS (SELECT 1 FROM events e
    WHERE e.tenant_id = messages.tenant_id AND e.environment = messages.environment
      AND e.id = messages.event_id AND e.expires_at IS NOT NULL);
CREATE INDEX messages_ttl ON messages (expires_at)
    WHERE expires_at IS NOT NULL AND state IN ('scheduled', 'held');
