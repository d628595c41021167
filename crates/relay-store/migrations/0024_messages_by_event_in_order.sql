-- An event's messages in the order the API lists them: `GET
-- /v1/events/{id}` and `GET /v1/messages?event_id=` ask for one event's
-- messages by id. With the event's index alone (tenant, environment,
-- event) SQLite's planner chose the scope's index (tenant, environment,
-- id) for the order and read every message of the tenant: 172 ms with a
-- million messages stored, 1.3 s with five (relay bench scale). With the id
-- in this index the filter and the order come from one range of it, on
-- both backends; the retention purge's lookups by event use it as before.
-- Same SQL on both backends.
DROP INDEX messages_event;
CREATE INDEX messages_event ON messages (tenant_id, environment, event_id, id);
