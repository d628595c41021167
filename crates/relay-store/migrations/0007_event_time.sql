-- When an event happened (its CloudEvents `time`), as the publisher gave it;
-- `created_at` stays when Relay accepted it (retention and replay count from
-- there). Events stored before this column existed have NULL here and are
-- read with `created_at` as their time, which is what they were delivered
-- with. Same SQL on both backends.
ALTER TABLE events ADD COLUMN occurred_at BIGINT;
