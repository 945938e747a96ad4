-- `recordings` and `recording_metadata` again with small index blocks: the listing looks up the start
-- and the metadata of a page's few dozen recordings by id, and ids are random, so with 1 024- or
-- 8 192-row blocks 50 ids touched nearly every block (measured, 100 000 recordings: metadata of 50 ids
-- 12–23 ms reading 218 000 rows; with 256-row blocks 5 ms, 5 000 rows; start of 102 ids 14–36 ms,
-- with 128-row blocks 5–6 ms). Same columns and keys: create, copy, one RENAME, drop. Every statement
-- can run again after a failure (projectors start only after migrations).
DROP TABLE IF EXISTS recordings_m005;
CREATE TABLE recordings_m005 (
  tenant_id String,
  recording_id String,
  started_at Int64,
  seq UInt64,
  ver UInt64 MATERIALIZED toUInt64(9007199254740992 - started_at)
) ENGINE = ReplacingMergeTree(ver)
ORDER BY (tenant_id, recording_id)
SETTINGS index_granularity = 128;
INSERT INTO recordings_m005 (tenant_id, recording_id, started_at, seq) SELECT tenant_id, recording_id, started_at, seq FROM recordings;
DROP TABLE IF EXISTS recordings_pre005;
RENAME TABLE recordings TO recordings_pre005, recordings_m005 TO recordings;
DROP TABLE recordings_pre005;

DROP TABLE IF EXISTS recording_metadata_m005;
CREATE TABLE recording_metadata_m005 (
  tenant_id String,
  recording_id String,
  key String,
  value String,
  seq UInt64,
  written_at Int64
) ENGINE = ReplacingMergeTree(seq)
ORDER BY (tenant_id, recording_id, key)
SETTINGS index_granularity = 256;
INSERT INTO recording_metadata_m005 (tenant_id, recording_id, key, value, seq, written_at) SELECT tenant_id, recording_id, key, value, seq, written_at FROM recording_metadata;
DROP TABLE IF EXISTS recording_metadata_pre005;
RENAME TABLE recording_metadata TO recording_metadata_pre005, recording_metadata_m005 TO recording_metadata;
DROP TABLE recording_metadata_pre005;
