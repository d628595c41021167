-- The event type version that shaped a message's payload (its schema's
-- thin and personal-data fields, `relay_core::shape::shaping_version`),
-- recorded beside `endpoint_version` when an attempt sends the payload and
-- kept from then on: a later version of the type never changes what a
-- message says it was shaped by. NULL: no attempt has shaped a payload yet,
-- or the message was produced before endpoint versions (sent whole), or the
-- type has no version. Same SQL on both backends.
ALTER TABLE messages ADD COLUMN event_type_version BIGINT;
