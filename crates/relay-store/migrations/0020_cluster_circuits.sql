-- One circuit breaker per endpoint for the whole cluster (`crate::circuits`,
-- docs/endpoint-health.md "Several nodes"). Each node pushes the signals it
-- saw into its endpoint's row and reads back the rows that are not closed.
-- `state`: closed, open or half_open; times are milliseconds of the
-- database's clock (never a node's). A row closed with no failures is
-- deleted, so the table holds the endpoints that are failing. No foreign
-- key: a node may still push the signals of an endpoint deleted meanwhile.
-- Same SQL on both backends (only PostgreSQL's nodes use it).
CREATE TABLE endpoint_circuits (
    endpoint_id TEXT PRIMARY KEY,
    state TEXT NOT NULL,
    consecutive_failures BIGINT NOT NULL DEFAULT 0,
    open_until BIGINT,
    probes_granted BIGINT NOT NULL DEFAULT 0,
    probes_expire_at BIGINT,
    updated_at BIGINT NOT NULL
);
-- Every sync reads the circuits that are not closed: a few rows.
CREATE INDEX endpoint_circuits_not_closed ON endpoint_circuits (endpoint_id)
    WHERE state <> 'closed';
