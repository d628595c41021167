-- Thin events: each event type version names the fields that are always
-- sent (identifiers, never personal data), as a JSON array of field paths
-- (relay_core::shape). Versions that exist already name none. Same SQL on
-- both backends.
ALTER TABLE event_type_versions ADD COLUMN thin_fields TEXT NOT NULL DEFAULT '[]';
