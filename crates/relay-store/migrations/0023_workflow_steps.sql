-- The workflow step (`crate::workflow_steps`, docs/delivery.md "The workflow
-- step"): a workflow engine asks for one event to be delivered to one
-- registered endpoint, idempotent by its step key, and reads back only the
-- delivery's outcome.
-- `workflow_steps` holds one row per (tenant, environment, step key): the
-- digest of the request that made it (the same key with another request is
-- refused), the endpoint, and the event it made (its message is the one of
-- that endpoint and event). The event is found by its own unique index
-- too: replay never gives a step's event to another endpoint, and the
-- retention purge deletes the step with its event.
-- `messages.answer_withheld` (1 for a step's message) tells the dispatcher
-- to record nothing of the receiver's answer but its status code: no body,
-- no header, no redirect target, in the attempt record or anywhere else.
-- Every other message has 0. Same SQL on both backends.
CREATE TABLE workflow_steps (
    tenant_id TEXT NOT NULL,
    environment TEXT NOT NULL,
    step_key TEXT NOT NULL,
    request_sha256 TEXT NOT NULL,
    endpoint_id TEXT NOT NULL,
    event_id TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, environment, step_key)
);
CREATE UNIQUE INDEX workflow_steps_event ON workflow_steps (tenant_id, environment, event_id);
ALTER TABLE messages ADD COLUMN answer_withheld BIGINT NOT NULL DEFAULT 0;
