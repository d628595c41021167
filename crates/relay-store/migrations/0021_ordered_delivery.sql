-- Ordered delivery per key (`crate::ordering`, docs/delivery.md "Ordered
-- delivery"). An endpoint's `ordering` is `none` or `per_key`. A message of
-- a `per_key` endpoint carries its ordering key (the event's ordering_key,
-- else its subject) and its place in that key's line (`ordering_pos`,
-- taken from `ordering_keys.tail`: publish order, a restart at the tail).
-- Messages of other endpoints leave both NULL, so they are in no index
-- below and their publishes write nothing more.
-- `ordering_keys` holds one row per (endpoint, key): its last position,
-- and on PostgreSQL the row lock that serializes what decides the key's
-- head (a publish, a restart, a promotion), so two nodes never both let
-- a message of one key go. Same SQL on both backends.
ALTER TABLE endpoints ADD COLUMN ordering TEXT NOT NULL DEFAULT 'none';
ALTER TABLE messages ADD COLUMN ordering_key TEXT;
ALTER TABLE messages ADD COLUMN ordering_pos BIGINT;
CREATE TABLE ordering_keys (
    endpoint_id TEXT NOT NULL,
    ordering_key TEXT NOT NULL,
    tail BIGINT NOT NULL,
    PRIMARY KEY (endpoint_id, ordering_key)
);
-- A key's live messages by state, then position: whether anything of the
-- key is live (an index probe per live state) and its first blocked one.
CREATE INDEX messages_ordering ON messages (endpoint_id, ordering_key, state, ordering_pos)
    WHERE ordering_key IS NOT NULL;
-- The expiry sweep's index (migration 0005) also holds blocked messages:
-- a blocked message's time-to-live ends it too.
DROP INDEX messages_ttl;
CREATE INDEX messages_ttl ON messages (expires_at)
    WHERE expires_at IS NOT NULL AND state IN ('scheduled', 'held', 'blocked');
