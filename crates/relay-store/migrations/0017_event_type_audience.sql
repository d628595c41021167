-- Whom an event type's events published without a consumer_id reach
-- (relay_core::audience): 'addressed' (the tenant's own consumer only; a
-- customer gets the type's events only when they name it as consumer_id)
-- or 'all_consumers' (every subscribed consumer, customers included).
-- Every existing type becomes 'addressed': before, an event with no
-- consumer_id reached every customer subscribed to its type, which a
-- tenant must now choose per type. Same SQL on both backends.
ALTER TABLE event_types ADD COLUMN audience TEXT NOT NULL DEFAULT 'addressed';
