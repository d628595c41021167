-- The health view's latency histogram, and the index its other figures need.
-- Same SQL on both backends.

-- Attempt durations counted per endpoint, hour (started_at / 3,600,000) and
-- bucket (relay_core::histogram::BOUNDS_MS), with the largest duration seen.
-- Completion batches add to it; rows older than two days are purged.
CREATE TABLE endpoint_latency (
    endpoint_id TEXT NOT NULL,
    hour BIGINT NOT NULL,
    bucket BIGINT NOT NULL,
    count BIGINT NOT NULL,
    max_ms BIGINT NOT NULL,
    PRIMARY KEY (endpoint_id, hour, bucket)
);
CREATE INDEX endpoint_latency_hour ON endpoint_latency (hour);

-- Success rates, the last success and recent errors read one endpoint's
-- attempts by time.
CREATE INDEX attempts_endpoint ON attempts (endpoint_id, started_at);
