-- recording_batches' summary columns again, sorted by time: the unfiltered listing (newest first)
-- reads a time window [T, now] of it instead of every row of the tenant. Every batch of a recording
-- that started at or after T has min_ts >= T, so one range read yields the page and its summaries;
-- recordings with a batch before T are dropped at the edge (recordings-timeline.sql.ts).
-- Measured reason (100 000 recordings): ids are random, so pages and per-page summaries read ~all rows
-- of tables sorted by id. The projector writes one row per `ev` summary, next to recording_batches.
CREATE TABLE IF NOT EXISTS recording_timeline (
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
  ingested_at Int64
) ENGINE = ReplacingMergeTree(seq)
ORDER BY (tenant_id, min_ts, recording_id, batch_id)
SETTINGS index_granularity = 1024;

-- Backfill from rows projected before this migration (projectors start only after migrations).
INSERT INTO recording_timeline (tenant_id, recording_id, batch_id, seq, event_count, bytes, min_ts, max_ts, page_views, meta_ts, viewport_width, viewport_height, url, ingested_at)
SELECT tenant_id, recording_id, batch_id, seq, event_count, bytes, min_ts, max_ts, page_views, meta_ts, viewport_width, viewport_height, url, ingested_at FROM recording_batches;
