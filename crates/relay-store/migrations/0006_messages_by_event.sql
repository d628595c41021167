-- An event's messages, found by the event: the retention purge asks whether
-- an old event still has a live message (scheduled, held, in flight) before
-- it deletes it, then deletes its messages and attempts; and removing an
-- event checks the messages' foreign key. Without this index each of those
-- read every message of the tenant. Same SQL on both backends.
CREATE INDEX messages_event ON messages (tenant_id, environment, event_id);
