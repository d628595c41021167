-- Object storage batches (issue #24): the messages of an object storage
-- endpoint are written in batches, one object per batch. A batch is
-- recorded here before its first write, with the exact bytes of its object
-- (base64: the same text column on both backends), the object's name, its
-- signature values, and which messages it holds in which order; every
-- later write of the batch (a retry, a recovery, a resend) writes these
-- same bytes to the same object. A message belongs to at most one batch.
-- Same SQL on both backends.
CREATE TABLE object_batches (
    id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL,
    environment TEXT NOT NULL,
    endpoint_id TEXT NOT NULL REFERENCES endpoints(id),
    object_key TEXT NOT NULL,
    content_type TEXT NOT NULL,
    object_b64 TEXT NOT NULL,
    webhook_timestamp TEXT NOT NULL,
    webhook_signature TEXT NOT NULL,
    created_at BIGINT NOT NULL
);

CREATE TABLE object_batch_members (
    batch_id TEXT NOT NULL REFERENCES object_batches(id),
    position BIGINT NOT NULL,
    message_id TEXT NOT NULL UNIQUE REFERENCES messages(id),
    PRIMARY KEY (batch_id, position)
);
