-- Cluster shares (issue #42): each node's share of an endpoint's limits
-- (slots of its max_concurrency, tokens per second of its rate limit),
-- leased for a time-to-live by the database's clock (expires_at, unix
-- milliseconds), so the nodes on one PostgreSQL hold one set of limits
-- between them (see relay_store::shares). `endpoint_id` is an endpoint's
-- id or a reserved key (`recovery:`), so it references nothing; `wants`
-- is 0 or 1. SQLite (one process owns the database) never writes here, but
-- has the table so both backends keep one schema. Same SQL on both.
CREATE TABLE endpoint_shares (
    endpoint_id TEXT NOT NULL,
    node TEXT NOT NULL,
    slots BIGINT NOT NULL,
    rate BIGINT NOT NULL,
    wants BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    PRIMARY KEY (endpoint_id, node)
);
