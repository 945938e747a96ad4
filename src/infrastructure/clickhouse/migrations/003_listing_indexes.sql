-- Read models for listing and statistics (GET /recordings, GET /statistics), written by the
-- recordings projection next to recording_batches / recording_metadata, same seq, same deletion rule.
-- Measured reason (100 000 recordings, 1.3 M batch rows): grouping recording_batches per recording
-- on every listing costs several times the 50 ms budget; so does filtering recording_metadata by key.

-- One row per recording once merged: the row of its earliest batch. The projector writes one row per
-- `ev` summary {tenant_id, recording_id, started_at: summary.minTs, seq}; `ver` is computed here so
-- that ReplacingMergeTree keeps the smallest started_at (timestamps are validated to 0..2^53-1).
-- Read with FINAL (or min() GROUP BY).
CREATE TABLE IF NOT EXISTS recordings (
  tenant_id String,
  recording_id String,
  started_at Int64,
  seq UInt64,
  ver UInt64 MATERIALIZED toUInt64(9007199254740992 - started_at)
) ENGINE = ReplacingMergeTree(ver)
ORDER BY (tenant_id, recording_id)
SETTINGS index_granularity = 1024;

-- recording_metadata again, sorted by key and value: metadata filters read a key/value range instead
-- of every metadata row of the tenant. The projector writes each recording_metadata row here too.
CREATE TABLE IF NOT EXISTS recording_metadata_by_key (
  tenant_id String,
  recording_id String,
  key String,
  value String,
  seq UInt64,
  written_at Int64
) ENGINE = ReplacingMergeTree(seq)
ORDER BY (tenant_id, key, value, recording_id);

-- Backfill from rows projected before this migration (projectors start only after migrations).
INSERT INTO recordings (tenant_id, recording_id, started_at, seq)
SELECT tenant_id, recording_id, min(min_ts), argMin(seq, min_ts) FROM recording_batches GROUP BY tenant_id, recording_id;

INSERT INTO recording_metadata_by_key (tenant_id, recording_id, key, value, seq, written_at)
SELECT tenant_id, recording_id, key, value, seq, written_at FROM recording_metadata;
