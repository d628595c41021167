-- Proof of endpoint ownership (`crate::ownership`, docs/security.md "Proof
-- of endpoint ownership"). An endpoint whose receiver must prove that it
-- wants the traffic names the origin (`scheme://host:port`) to prove in
-- `ownership_origin` (NULL: no proof is owed). Its state is `unverified`
-- while the tenant has no proof for that origin; `proven_origins` holds the
-- tenant's proofs, one per origin, kept while the tenant exists. The
-- prover's schedule: when the next challenge is due (also its lease: a
-- node takes a due endpoint by moving it forward), the last result.
-- Same SQL on both backends.
ALTER TABLE endpoints ADD COLUMN verify_ownership BIGINT NOT NULL DEFAULT 0;
ALTER TABLE endpoints ADD COLUMN ownership_origin TEXT;
ALTER TABLE endpoints ADD COLUMN ownership_next_check_at BIGINT;
ALTER TABLE endpoints ADD COLUMN ownership_checked_at BIGINT;
ALTER TABLE endpoints ADD COLUMN ownership_checks BIGINT NOT NULL DEFAULT 0;
ALTER TABLE endpoints ADD COLUMN ownership_failure_json TEXT;
CREATE TABLE proven_origins (
    tenant_id TEXT NOT NULL,
    origin TEXT NOT NULL,
    endpoint_id TEXT NOT NULL,
    proven_at BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, origin)
);
-- The prover's queue: unverified endpoints by when their next challenge is due.
CREATE INDEX endpoints_ownership_due ON endpoints (ownership_next_check_at)
    WHERE state = 'unverified';
