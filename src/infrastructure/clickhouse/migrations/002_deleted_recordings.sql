-- Deletion markers (`del` messages) per recording, versioned by the marker's stream sequence.
-- Rule for reads: a row of a projection table counts only if its seq is above the recording's
-- max(seq) here (deleted recordings are also removed by mutation; this covers older messages
-- redelivered after the mutation ran, and recordings written again after their deletion).
CREATE TABLE IF NOT EXISTS deleted_recordings (
  tenant_id String,
  recording_id String,
  seq UInt64,
  deleted_at Int64
) ENGINE = ReplacingMergeTree(seq)
ORDER BY (tenant_id, recording_id);
