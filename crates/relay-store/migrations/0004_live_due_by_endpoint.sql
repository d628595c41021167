-- Live claims that look past full lanes (`live_claim` in src/backend.rs). A
-- claim first takes the next due live messages from `messages_due`; when the
-- endpoints whose lanes are full or capped eat that window, it finds the
-- endpoints with scheduled live messages by a skip scan over this index (one
-- probe per endpoint, however large its backlog), reads each one's oldest due
-- time from it, and takes each chosen endpoint's oldest due messages, at most
-- its room. Partial on the literal `priority = 0`, like `messages_due`. Same
-- SQL on both backends.
CREATE INDEX messages_live_due ON messages (endpoint_id, next_attempt_at)
    WHERE state = 'scheduled' AND priority = 0;
