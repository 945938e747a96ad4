// ClickHouse tables written by projections. Their DDL lives only in the numbered migrations
// (001 to 009); a rebuild copies the live table's structure with `CREATE TABLE … AS …`, so the two
// cannot diverge.
export const T = {
  batches: 'recording_batches',
  minutes: 'recording_minutes',
  metadata: 'recording_metadata',
  /** recording_metadata again, sorted by key and value for metadata filters (migration 003). */
  metadataByKey: 'recording_metadata_by_key',
  /** One row per `ev` summary; ReplacingMergeTree keeps the earliest start (migration 003). */
  recordings: 'recordings',
  /** recording_batches' summary columns sorted by (tenant_id, min_ts): the unfiltered listing (migration 004). */
  timeline: 'recording_timeline',
  /** The keyframe fields of batch summaries, one row each (migration 006). */
  keyframes: 'recording_keyframes',
  /** Pages, clicks, errors, failed requests of each batch (migration 007, the activity projection). */
  activity: 'recording_activity',
  /** Labels of clickable nodes, by node id (migration 007). */
  activityNodes: 'recording_activity_nodes',
  /** Inputs, active seconds and change times per batch (migration 007). */
  activityBatches: 'recording_activity_batches',
  /** The three activity tables' rows in one, sorted by kind and their batch's start (migration 009): window reads. */
  activityTimeline: 'recording_activity_timeline',
  deleted: 'deleted_recordings',
} as const;

/** batch_ts of recording_activity_timeline's rows whose message has no recording_timeline row: read by every window (migration 009). */
export const UNPLACED_TS = 9007199254740991;
