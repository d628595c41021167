-- Fair claims of recovery traffic (`claim` in src/backend.rs): the claim finds
-- the tenants with scheduled recovery messages by a skip scan over this index
-- (one probe per tenant, however large its backlog), then takes each tenant's
-- share, oldest due first, from it. Partial on the literal `priority = 1`:
-- live messages (priority 0) are not in it and keep using `messages_due`.
CREATE INDEX messages_recovery_due ON messages (tenant_id, next_attempt_at)
    WHERE state = 'scheduled' AND priority = 1;
