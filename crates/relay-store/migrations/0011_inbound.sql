-- Inbound provider webhooks (docs/inbound.md): the sources a tenant points
-- providers at, the receipts they send (written before Relay answers), and
-- the append-only ledger the verified ones become. Same SQL on both backends.

-- A source: one provider's webhooks for one tenant and environment. The
-- secret (and the one before the last rotation, while its overlap lasts)
-- is sealed under the master key, bound to the source's id; `token` is
-- the unguessable part of the receiving URL (128 random bits). A deleted
-- source keeps its row (its receipts and ledger entries point at it) and
-- answers no more.
CREATE TABLE inbound_sources (
    id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL REFERENCES tenants(id),
    environment TEXT NOT NULL CHECK (environment IN ('live', 'test')),
    token TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    preset TEXT NOT NULL,
    provider TEXT NOT NULL,
    options_json TEXT NOT NULL,
    secret_sealed TEXT NOT NULL,
    previous_secret_sealed TEXT,
    previous_secret_expires_at BIGINT,
    rate_limit_per_second BIGINT NOT NULL,
    max_body_bytes BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    deleted_at BIGINT
);
CREATE INDEX inbound_sources_scope ON inbound_sources (tenant_id, environment, id)
    WHERE deleted_at IS NULL;

-- A receipt: one request a source received, with its verdict. A verified
-- one is unique per (tenant, environment, provider, provider event id): a
-- repeat increments `received_count` on the first and is not processed
-- again. A rejected one (no event id) is kept for diagnosis, the newest
-- 100 per source, and never processed. Verified receipts are the queue
-- of the ledger's writer: `pending` (due at `next_attempt_at`), leased as
-- `processing` (`lease_version` fences a completion to its lease), then
-- `processed`, or `failed` after their attempts.
CREATE TABLE inbound_receipts (
    id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL,
    environment TEXT NOT NULL,
    source_id TEXT NOT NULL REFERENCES inbound_sources(id),
    provider TEXT NOT NULL,
    preset TEXT NOT NULL,
    provider_event_id TEXT,
    verdict TEXT NOT NULL,
    refusal TEXT,
    state TEXT NOT NULL,
    received_count BIGINT NOT NULL DEFAULT 1,
    attempts BIGINT NOT NULL DEFAULT 0,
    last_error TEXT,
    url TEXT NOT NULL,
    headers_json TEXT NOT NULL,
    body_base64 TEXT NOT NULL,
    next_attempt_at BIGINT,
    lease_owner TEXT,
    lease_until BIGINT,
    lease_version BIGINT NOT NULL DEFAULT 0,
    received_at BIGINT NOT NULL,
    last_received_at BIGINT NOT NULL,
    processed_at BIGINT,
    UNIQUE (tenant_id, environment, provider, provider_event_id)
);
CREATE INDEX inbound_receipts_scope ON inbound_receipts (tenant_id, environment, id);
CREATE INDEX inbound_receipts_source ON inbound_receipts (source_id, id);
CREATE INDEX inbound_receipts_rejected ON inbound_receipts (source_id, id)
    WHERE verdict = 'rejected';
CREATE INDEX inbound_receipts_due ON inbound_receipts (next_attempt_at)
    WHERE state = 'pending';
CREATE INDEX inbound_receipts_leases ON inbound_receipts (lease_until)
    WHERE state = 'processing';

-- The ledger: append-only, one entry per provider event of a processed
-- receipt (a SendGrid batch gives several, `ordinal` 0, 1, …). Unique per
-- (receipt, ordinal), so processing a receipt again writes nothing twice.
CREATE TABLE ledger_entries (
    id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL,
    environment TEXT NOT NULL,
    source_id TEXT NOT NULL,
    provider TEXT NOT NULL,
    event_type TEXT NOT NULL,
    provider_event_id TEXT NOT NULL,
    occurred_at BIGINT,
    received_at BIGINT NOT NULL,
    receipt_id TEXT NOT NULL REFERENCES inbound_receipts(id),
    ordinal BIGINT NOT NULL,
    message_id TEXT,
    recipient TEXT,
    status TEXT,
    recorded_at BIGINT NOT NULL,
    UNIQUE (receipt_id, ordinal)
);
CREATE INDEX ledger_entries_scope ON ledger_entries (tenant_id, environment, id);
CREATE INDEX ledger_entries_message ON ledger_entries (tenant_id, environment, message_id, id)
    WHERE message_id IS NOT NULL;
