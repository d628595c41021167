-- The embeddable portal (docs/portal.md). Same SQL on both backends.
--
-- portal_tokens: short-lived tokens a tenant mints for one of its consumers.
-- Only the SHA-256 of the token is kept (like API keys). No foreign key to
-- consumers: a consumer's deletion is not blocked by its tokens; a token
-- whose consumer is gone is never found (the lookup joins consumers).
-- capabilities and allowed_origins are JSON arrays of strings.
CREATE TABLE portal_tokens (
    id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL REFERENCES tenants(id),
    environment TEXT NOT NULL,
    consumer_id TEXT NOT NULL,
    token_hash TEXT NOT NULL UNIQUE,
    capabilities TEXT NOT NULL,
    allowed_origins TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    revoked_at BIGINT
);
CREATE INDEX portal_tokens_consumer ON portal_tokens (tenant_id, environment, consumer_id);

-- portal_brands: a tenant's brand for its portal (name, logo, colours, font,
-- theme, the origins that may frame the hosted page), one JSON document per
-- tenant and environment (a test key cannot change what the live portal
-- shows or who may frame it); a sub-tenant without one uses its parent's.
CREATE TABLE portal_brands (
    tenant_id TEXT NOT NULL REFERENCES tenants(id),
    environment TEXT NOT NULL,
    brand TEXT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, environment)
);
