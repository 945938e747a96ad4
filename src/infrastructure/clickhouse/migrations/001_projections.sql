-- Projections of the TAPEDECK_EVENTS stream. Every table is idempotent under redelivery:
-- ReplacingMergeTree keyed by the natural id of what a message says, versioned by stream sequence,
-- and read with de-duplication (argMax / LIMIT 1 BY / FINAL), never with a plain sum over raw rows.
-- Times are Int64 epoch milliseconds (18.16 has no DateTime64).

-- One row per stored event batch (de-duplicated by batch id).
CREATE TABLE IF NOT EXISTS recording_batches (
  tenant_id String,
  recording_id String,
  batch_id String,
  seq UInt64,
  event_count UInt32,
  bytes UInt64,
  min_ts Int64,
  max_ts Int64,
  page_views UInt32,
  meta_ts Int64,
  viewport_width UInt32,
  viewport_height UInt32,
  url String,
  type_keys Array(UInt16),
  type_counts Array(UInt32),
  ingested_at Int64
) ENGINE = ReplacingMergeTree(seq)
ORDER BY (tenant_id, recording_id, batch_id);

-- Events per minute per batch, for time series.
CREATE TABLE IF NOT EXISTS recording_minutes (
  tenant_id String,
  recording_id String,
  batch_id String,
  minute Int64,
  seq UInt64,
  event_count UInt32
) ENGINE = ReplacingMergeTree(seq)
ORDER BY (tenant_id, minute, recording_id, batch_id);

-- Latest value of each metadata key per recording: the row with the highest stream sequence wins.
CREATE TABLE IF NOT EXISTS recording_metadata (
  tenant_id String,
  recording_id String,
  key String,
  value String,
  seq UInt64,
  written_at Int64
) ENGINE = ReplacingMergeTree(seq)
ORDER BY (tenant_id, recording_id, key);
