-- Tenant secrets (`PUT /v1/secrets/{name}`): credentials a destination (or
-- an inbound source) names by a `secret:NAME` reference instead of holding
-- them. Write-only: the value is sealed under the master key, bound to its
-- (tenant, environment, name), and no read of the API returns it. Same SQL
-- on both backends.
CREATE TABLE tenant_secrets (
    tenant_id TEXT NOT NULL REFERENCES tenants(id),
    environment TEXT NOT NULL CHECK (environment IN ('live', 'test')),
    name TEXT NOT NULL,
    sealed_value TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, environment, name)
);
