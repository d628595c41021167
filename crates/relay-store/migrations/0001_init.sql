-- Relay schema. The same text runs on PostgreSQL and SQLite: it uses only
-- types and syntax both accept (SQLite gives BIGINT integer affinity, and both
-- support partial indexes). A migration that needs dialect-specific SQL gets a
-- file per dialect; see src/migrate.rs.
-- Timestamps are unix milliseconds (BIGINT); JSON is stored as TEXT so payload
-- bytes are kept exactly as published.

CREATE TABLE relay_settings (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE tenants (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    parent_id TEXT REFERENCES tenants(id),
    created_at BIGINT NOT NULL
);

CREATE TABLE api_keys (
    id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL REFERENCES tenants(id),
    environment TEXT NOT NULL CHECK (environment IN ('live', 'test')),
    name TEXT,
    prefix TEXT NOT NULL,
    key_hash TEXT NOT NULL UNIQUE,
    created_at BIGINT NOT NULL,
    revoked_at BIGINT
);
CREATE INDEX api_keys_tenant ON api_keys (tenant_id, id);

CREATE TABLE event_types (
    tenant_id TEXT NOT NULL REFERENCES tenants(id),
    environment TEXT NOT NULL,
    name TEXT NOT NULL,
    description TEXT NOT NULL,
    current_version BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, environment, name)
);

CREATE TABLE event_type_versions (
    tenant_id TEXT NOT NULL,
    environment TEXT NOT NULL,
    name TEXT NOT NULL,
    version BIGINT NOT NULL,
    schema_json TEXT NOT NULL,
    sample_json TEXT,
    personal_data_fields TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, environment, name, version),
    FOREIGN KEY (tenant_id, environment, name) REFERENCES event_types (tenant_id, environment, name)
);

CREATE TABLE consumers (
    id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL REFERENCES tenants(id),
    environment TEXT NOT NULL,
    external_id TEXT NOT NULL,
    name TEXT,
    source TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    UNIQUE (tenant_id, environment, external_id)
);
CREATE INDEX consumers_scope ON consumers (tenant_id, environment, id);

CREATE TABLE endpoints (
    id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL REFERENCES tenants(id),
    environment TEXT NOT NULL,
    consumer_id TEXT NOT NULL,
    description TEXT,
    kind TEXT NOT NULL,
    destination_json TEXT NOT NULL,
    event_types_json TEXT NOT NULL,
    signature_scheme TEXT NOT NULL,
    retry_schedule_json TEXT,
    max_concurrency BIGINT NOT NULL,
    rate_limit_per_second BIGINT,
    snapshot_fields_json TEXT NOT NULL,
    version BIGINT NOT NULL,
    state TEXT NOT NULL,
    disabled_reason TEXT,
    auto_disable BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    deleted_at BIGINT
);
CREATE INDEX endpoints_scope ON endpoints (tenant_id, environment, id);
CREATE INDEX endpoints_consumer ON endpoints (consumer_id);

-- Signing keys. The secret (Ed25519 seed or HMAC key) is sealed under the
-- installation's master key; the Ed25519 public key is kept in clear.
CREATE TABLE endpoint_keys (
    id TEXT PRIMARY KEY,
    endpoint_id TEXT NOT NULL REFERENCES endpoints(id),
    scheme TEXT NOT NULL,
    public_key TEXT,
    sealed_secret TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    retires_at BIGINT
);
CREATE INDEX endpoint_keys_endpoint ON endpoint_keys (endpoint_id, created_at);

-- Health warnings (redirects seen, …), newest read first.
CREATE TABLE endpoint_warnings (
    endpoint_id TEXT NOT NULL REFERENCES endpoints(id),
    kind TEXT NOT NULL,
    detail TEXT NOT NULL,
    at BIGINT NOT NULL
);
CREATE INDEX endpoint_warnings_endpoint ON endpoint_warnings (endpoint_id, at);

-- One row per (endpoint, subscribed type), so fan-out is an index lookup.
CREATE TABLE endpoint_subscriptions (
    endpoint_id TEXT NOT NULL REFERENCES endpoints(id),
    tenant_id TEXT NOT NULL,
    environment TEXT NOT NULL,
    event_type TEXT NOT NULL,
    PRIMARY KEY (endpoint_id, event_type)
);
CREATE INDEX endpoint_subscriptions_fanout ON endpoint_subscriptions (tenant_id, environment, event_type);

CREATE TABLE subject_seqs (
    tenant_id TEXT NOT NULL,
    environment TEXT NOT NULL,
    subject TEXT NOT NULL,
    seq BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, environment, subject)
);

CREATE TABLE events (
    tenant_id TEXT NOT NULL REFERENCES tenants(id),
    environment TEXT NOT NULL,
    id TEXT NOT NULL,
    event_type TEXT NOT NULL,
    type_version BIGINT NOT NULL,
    subject TEXT,
    data TEXT NOT NULL,
    consumer_id TEXT,
    ordering_key TEXT,
    seq BIGINT,
    traceparent TEXT NOT NULL,
    expires_at BIGINT,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, environment, id)
);
CREATE INDEX events_created ON events (created_at);

CREATE TABLE messages (
    id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL,
    environment TEXT NOT NULL,
    event_id TEXT NOT NULL,
    endpoint_id TEXT NOT NULL REFERENCES endpoints(id),
    event_type TEXT NOT NULL,
    state TEXT NOT NULL,
    attempts_used BIGINT NOT NULL DEFAULT 0,
    deferrals_used BIGINT NOT NULL DEFAULT 0,
    next_attempt_at BIGINT,
    lease_owner TEXT,
    lease_until BIGINT,
    lease_version BIGINT NOT NULL DEFAULT 0,
    -- 0 live traffic, 1 recovery (recover, bulk retry, replay): claims take
    -- live messages first.
    priority BIGINT NOT NULL DEFAULT 0,
    last_error_code TEXT,
    terminal_reason TEXT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    UNIQUE (endpoint_id, event_id),
    FOREIGN KEY (tenant_id, environment, event_id) REFERENCES events (tenant_id, environment, id)
);
CREATE INDEX messages_scope ON messages (tenant_id, environment, id);
CREATE INDEX messages_endpoint ON messages (endpoint_id, id);
CREATE INDEX messages_due ON messages (priority, next_attempt_at) WHERE state = 'scheduled';
CREATE INDEX messages_leases ON messages (lease_until) WHERE state = 'in_flight';

CREATE TABLE attempts (
    id TEXT PRIMARY KEY,
    message_id TEXT NOT NULL REFERENCES messages(id),
    tenant_id TEXT NOT NULL,
    environment TEXT NOT NULL,
    endpoint_id TEXT NOT NULL,
    number BIGINT NOT NULL,
    trigger TEXT NOT NULL,
    started_at BIGINT NOT NULL,
    duration_ms BIGINT NOT NULL,
    destination_ip TEXT,
    status_code BIGINT,
    error_kind TEXT,
    body_sha256 TEXT NOT NULL,
    signature TEXT NOT NULL,
    response_body TEXT,
    outcome TEXT NOT NULL
);
CREATE INDEX attempts_message ON attempts (message_id, id);

-- Who did what: rotations, recovery operations, endpoint creation and removal.
CREATE TABLE audit_log (
    id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL,
    environment TEXT NOT NULL,
    actor TEXT NOT NULL,
    action TEXT NOT NULL,
    target TEXT NOT NULL,
    parameters TEXT NOT NULL,
    at BIGINT NOT NULL
);
CREATE INDEX audit_log_scope ON audit_log (tenant_id, environment, id);

-- Durable jobs (bulk retry): a worker leases a job and advances its cursor
-- batch by batch, each batch in one transaction, so a restart resumes it.
CREATE TABLE jobs (
    id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL,
    environment TEXT NOT NULL,
    kind TEXT NOT NULL,
    parameters TEXT NOT NULL,
    state TEXT NOT NULL,
    cursor TEXT,
    processed BIGINT NOT NULL DEFAULT 0,
    affected BIGINT NOT NULL DEFAULT 0,
    lease_owner TEXT,
    lease_until BIGINT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    finished_at BIGINT
);
CREATE INDEX jobs_pending ON jobs (created_at) WHERE state IN ('queued', 'running');

-- The automatic-disable failure clock per endpoint (relay_core::autodisable);
-- durable, so a restart does not reset it. No row = no failures.
CREATE TABLE endpoint_health (
    endpoint_id TEXT PRIMARY KEY REFERENCES endpoints(id),
    window_first BIGINT,
    last_failure BIGINT,
    started_at BIGINT,
    warned BIGINT NOT NULL DEFAULT 0
);
