-- An endpoint's revision: counts every change of its row (settings, state,
-- signing scheme), so that a change decided from what a caller read applies
-- only while the row is still that one (`PATCH` with `If-Match`, and every
-- update, which is a compare-and-set on it). Same SQL on both backends.
ALTER TABLE endpoints ADD COLUMN revision BIGINT NOT NULL DEFAULT 1;
