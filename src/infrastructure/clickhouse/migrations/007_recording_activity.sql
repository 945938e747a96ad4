-- Activity projections (docs/activity.md), written by the `activity` projection from the events of
-- each `ev` message. Rows are versioned by stream sequence; a batch stored twice (same batch_id, two
-- messages) gives two copies that reads collapse by (recording_id, batch_id, idx) as recording_batches
-- are collapsed by batch id. Rules spanning batches (page views, click targets, rage and dead clicks,
-- active time) are applied at read time (src/domain/activity/activity-rules.ts, read-model/activity.sql.ts).

-- One row per page (rrweb Meta event), click, console error and failed network request.
CREATE TABLE IF NOT EXISTS recording_activity (
  tenant_id String,
  recording_id String,
  seq UInt64,
  batch_id String,
  idx UInt32,
  kind Enum8('page' = 1, 'click' = 2, 'error' = 3, 'network' = 4),
  ts Int64,
  url String,
  path String,
  title String,
  text String,
  node_id Int64,
  x Int32,
  y Int32,
  page_load UInt8,
  status Int32,
  method String,
  duration Int64
) ENGINE = ReplacingMergeTree(seq)
ORDER BY (tenant_id, recording_id, seq, idx)
SETTINGS index_granularity = 1024;

-- Labels of clickable nodes serialised by a batch (a full snapshot, added nodes): a click's target.
CREATE TABLE IF NOT EXISTS recording_activity_nodes (
  tenant_id String,
  recording_id String,
  seq UInt64,
  batch_id String,
  node_id Int64,
  tag String,
  text String,
  selector String
) ENGINE = ReplacingMergeTree(seq)
ORDER BY (tenant_id, recording_id, node_id, seq)
SETTINGS index_granularity = 1024;

-- Per batch: input events, the seconds the user was active, the times something changed (what answers a click).
CREATE TABLE IF NOT EXISTS recording_activity_batches (
  tenant_id String,
  recording_id String,
  seq UInt64,
  batch_id String,
  min_ts Int64,
  max_ts Int64,
  inputs UInt32,
  active_seconds Array(Int64),
  changes Array(Int64)
) ENGINE = ReplacingMergeTree(seq)
ORDER BY (tenant_id, recording_id, seq)
SETTINGS index_granularity = 1024;
