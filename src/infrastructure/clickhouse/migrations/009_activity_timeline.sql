-- The activity rows again (recording_activity, recording_activity_nodes, recording_activity_batches in
-- one table, `kind` naming which), sorted by kind and by `batch_ts`: the first event time of their
-- batch as recording_timeline holds it (the min_ts of the message's Td-Summary). A listing window
-- [since, now] of recording_timeline then has every activity row of its recordings in the range
-- batch_ts >= since of each kind, and a page's recordings theirs within their own spans, so the
-- activity filters and the page's activity summaries read window-sized data. Measured reason
-- (100 000 recordings): the tables sorted by recording id read most of their granules for a window of
-- a few hundred random ids. Rows of a message with no timeline row (no usable summary) get batch_ts
-- 9007199254740991 and are read by every window. Written by the activity projection beside the other
-- three, removed with them; same collapsing keys (a kind's rows have the key of their own table).
CREATE TABLE IF NOT EXISTS recording_activity_timeline (
  tenant_id String,
  kind Enum8('page' = 1, 'click' = 2, 'error' = 3, 'network' = 4, 'node' = 5, 'batch' = 6),
  batch_ts Int64,
  recording_id String,
  seq UInt64,
  batch_id String,
  idx UInt32,
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
  duration Int64,
  tag String,
  selector String,
  min_ts Int64,
  max_ts Int64,
  inputs UInt32,
  active_seconds Array(Int64),
  changes Array(Int64)
) ENGINE = ReplacingMergeTree(seq)
ORDER BY (tenant_id, kind, batch_ts, recording_id, seq, idx, node_id)
SETTINGS index_granularity = 1024;

-- Backfill from rows projected before this migration (projectors start only after migrations); a
-- message's batch_ts from its recording_batches row, as the projector takes it from the same summary.
INSERT INTO recording_activity_timeline (tenant_id, kind, batch_ts, recording_id, seq, batch_id, idx, ts, url, path, title, text, node_id, x, y, page_load, status, method, duration)
SELECT tenant_id, toString(kind), if(placed = 1, bts, toInt64(9007199254740991)), recording_id, seq, batch_id, idx, ts, url, path, title, text, node_id, x, y, page_load, status, method, duration
FROM recording_activity AS a ANY LEFT JOIN (SELECT tenant_id, recording_id, seq, min_ts AS bts, toUInt8(1) AS placed FROM recording_batches) AS b USING (tenant_id, recording_id, seq);

INSERT INTO recording_activity_timeline (tenant_id, kind, batch_ts, recording_id, seq, batch_id, node_id, tag, text, selector)
SELECT tenant_id, 'node', if(placed = 1, bts, toInt64(9007199254740991)), recording_id, seq, batch_id, node_id, tag, text, selector
FROM recording_activity_nodes AS a ANY LEFT JOIN (SELECT tenant_id, recording_id, seq, min_ts AS bts, toUInt8(1) AS placed FROM recording_batches) AS b USING (tenant_id, recording_id, seq);

INSERT INTO recording_activity_timeline (tenant_id, kind, batch_ts, recording_id, seq, batch_id, min_ts, max_ts, inputs, active_seconds, changes)
SELECT tenant_id, 'batch', if(placed = 1, bts, toInt64(9007199254740991)), recording_id, seq, batch_id, min_ts, max_ts, inputs, active_seconds, changes
FROM recording_activity_batches AS a ANY LEFT JOIN (SELECT tenant_id, recording_id, seq, min_ts AS bts, toUInt8(1) AS placed FROM recording_batches) AS b USING (tenant_id, recording_id, seq);
