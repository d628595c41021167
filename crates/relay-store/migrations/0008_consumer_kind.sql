-- Whom a consumer stands for: 'tenant' (the tenant itself) or 'customer'.
-- Relay's operational events (webhook.attempt_exhausted,
-- webhook_endpoint.disabled / .recovered / .failure_warned) describe the
-- tenant's endpoints and are delivered only to the endpoints of its
-- 'tenant' consumer; every consumer that exists already is a customer.
-- At most one 'tenant' consumer per tenant and environment. Same SQL on both
-- backends.
ALTER TABLE consumers ADD COLUMN kind TEXT NOT NULL DEFAULT 'customer';
CREATE UNIQUE INDEX consumers_tenant_kind ON consumers (tenant_id, environment)
    WHERE kind = 'tenant';
