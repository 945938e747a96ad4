-- The keyframes of each recording (a FullSnapshot with the Meta before it: src/domain/keyframes.ts),
-- from the keyframe fields of its batch summaries: one row per keyframe wholly in a batch ('kf', at
-- its Meta's time), per Meta left waiting at a batch's end ('meta') and per FullSnapshot opening a
-- batch without its Meta ('open'). Reads pair 'meta' with the next 'open' in stream order (seq), as
-- windowed event reads do from the same summaries. seq is in the key: a batch stored twice gives two
-- rows, a redelivered message the same row. Batches stored before this table carry no keyframe fields,
-- so nothing is backfilled (a rebuild gives them none either).
CREATE TABLE IF NOT EXISTS recording_keyframes (
  tenant_id String,
  recording_id String,
  kind Enum8('kf' = 1, 'meta' = 2, 'open' = 3),
  ts Int64,
  seq UInt64
) ENGINE = ReplacingMergeTree(seq)
ORDER BY (tenant_id, recording_id, ts, kind, seq)
SETTINGS index_granularity = 1024;
