-- The attempt record for every destination kind (issue #22): a typed
-- error_code (what the message's last_error_code says: http_<status>,
-- invalid_status, or a transport kind) and a per-kind detail object (JSON
-- text). HTTPS's status code and response prefix move into detail, so a
-- broker's attempt does not carry empty HTTP columns; the API still shows
-- them as status_code and response_body. Existing rows are rewritten.
-- (postgres dialect: the JSON constructor differs.)
ALTER TABLE attempts ADD COLUMN error_code TEXT;
ALTER TABLE attempts ADD COLUMN detail TEXT NOT NULL DEFAULT '{}';
UPDATE attempts SET
    error_code = CASE
        WHEN status_code BETWEEN 200 AND 299 THEN NULL
        WHEN status_code BETWEEN 300 AND 599 THEN 'http_' || status_code
        WHEN status_code IS NOT NULL THEN 'invalid_status'
        WHEN error_kind = 'http' THEN 'protocol'
        WHEN error_kind IN ('connect', 'dns', 'timeout', 'tls', 'blocked_address') THEN error_kind
        ELSE NULL
    END,
    detail = CASE
        WHEN status_code IS NULL THEN '{}'
        ELSE json_build_object('status_code', status_code, 'response_body', response_body)::text
    END;
ALTER TABLE attempts DROP COLUMN status_code;
ALTER TABLE attempts DROP COLUMN response_body;
