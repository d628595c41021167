-- Endpoint versions (thin events and snapshots): an endpoint's payload
-- settings (its snapshot allow list, whether it takes personal data, the
-- event type versions it pins) are versioned; each change opens the next
-- version, the earlier ones stay, and every message records the version it
-- was produced for, so its payload is shaped the same at every attempt.
-- Same SQL on both backends.
ALTER TABLE endpoints ADD COLUMN allow_personal_data BIGINT NOT NULL DEFAULT 0;
ALTER TABLE endpoints ADD COLUMN event_type_versions_json TEXT NOT NULL DEFAULT '{}';
ALTER TABLE endpoints ADD COLUMN version_started_at BIGINT NOT NULL DEFAULT 0;

-- Endpoints that exist already received every event's whole data: they
-- keep receiving it (`*`, personal data included) until their owner
-- chooses otherwise; upgrading never changes what an endpoint receives.
UPDATE endpoints SET snapshot_fields_json = '["*"]', allow_personal_data = 1,
    version_started_at = created_at;

CREATE TABLE endpoint_versions (
    endpoint_id TEXT NOT NULL,
    version BIGINT NOT NULL,
    snapshot_fields_json TEXT NOT NULL,
    allow_personal_data BIGINT NOT NULL,
    event_type_versions_json TEXT NOT NULL,
    started_at BIGINT NOT NULL,
    PRIMARY KEY (endpoint_id, version)
);
INSERT INTO endpoint_versions (endpoint_id, version, snapshot_fields_json, allow_personal_data,
    event_type_versions_json, started_at)
SELECT id, version, snapshot_fields_json, allow_personal_data, event_type_versions_json,
    version_started_at FROM endpoints;

-- NULL: produced before endpoint versions; such a message carries the
-- event's whole data, as it would have then.
ALTER TABLE messages ADD COLUMN endpoint_version BIGINT;
