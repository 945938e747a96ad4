// The recordings projection: every message of TAPEDECK_EVENTS (`td.rec.>`) becomes rows of
// recording_batches (and its copy sorted by time,
// recording_timeline), recording_minutes, recording_keyframes, recordings, recording_metadata (and its
// copy sorted by key, recording_metadata_by_key) and deleted_recordings. A server-made keyframe (`kf`)
// gives one recording_keyframes row ('server', or 'failed' for an attempt that failed) and nothing
// else: it is no event of the recording. All rows are versioned by stream sequence, so
// applying a message twice (redelivery, rebuild) changes nothing once ReplacingMergeTree or a
// de-duplicating read collapses the copies.
//
// Deletion rule: a `del` marker at seq D removes the recording's rows with seq < D (a mutation) and
// is remembered in deleted_recordings; reads ignore rows with seq < the recording's max deletion
// seq, which covers an older message redelivered after the mutation ran (the read side:
// read-model/visibility.sql.ts).
import { parseKeyframeHeader } from '../domain/server-keyframes';
import { ALL_RECORDINGS, H, parseSubject } from '../infrastructure/nats/subjects';
import { DeletionMarkers } from './deletion-markers';
import { metadataRows } from './metadata-rows';
import type { Projection, ProjectionMessage, ProjectionOutput } from './projection';
import { T } from './projection-tables';
import { summaryRows } from './summary-rows';

const RECORDING_TABLES = [T.batches, T.timeline, T.minutes, T.keyframes, T.recordings, T.metadata, T.metadataByKey];

export function applyRecordingMessages(messages: readonly ProjectionMessage[]): ProjectionOutput {
  const out: ProjectionOutput = { rows: Object.fromEntries([...RECORDING_TABLES, T.deleted].map((t) => [t, []])), deletions: [], skipped: [] };
  // Markers in this very batch: earlier messages of the recording produce nothing at all.
  const deletedBefore = new DeletionMarkers(messages);
  for (const m of messages) {
    const s = parseSubject(m.subject);
    if (!s) {
      out.skipped.push({ seq: m.seq, reason: `unexpected subject ${m.subject}` });
      continue;
    }
    const { tenantId, recordingId, kind } = s;
    if (kind === 'del') {
      out.rows[T.deleted].push({ tenant_id: tenantId, recording_id: recordingId, seq: m.seq, deleted_at: m.timeMs });
      continue;
    }
    if (deletedBefore.deletes(tenantId, recordingId, m.seq)) continue;
    if (kind === 'meta') {
      const r = metadataRows(m, tenantId, recordingId);
      if ('skip' in r) out.skipped.push({ seq: m.seq, reason: r.skip });
      else {
        out.rows[T.metadata].push(...r.rows);
        out.rows[T.metadataByKey].push(...r.rows);
      }
      continue;
    }
    if (kind === 'kf') {
      const h = parseKeyframeHeader(m.headers[H.keyframe]);
      if (!h) out.skipped.push({ seq: m.seq, reason: 'no readable Td-Keyframe header' });
      else out.rows[T.keyframes].push({ tenant_id: tenantId, recording_id: recordingId, kind: h.ok ? 'server' : 'failed', ts: h.ts, seq: m.seq });
      continue;
    }
    const r = summaryRows(m, tenantId, recordingId);
    if ('skip' in r) out.skipped.push({ seq: m.seq, reason: r.skip });
    else if ('rows' in r) {
      const { batch, timeline, recording } = r.rows;
      if (batch && timeline && recording) {
        out.rows[T.batches].push(batch);
        out.rows[T.timeline].push(timeline);
        out.rows[T.recordings].push(recording);
      }
      out.rows[T.minutes].push(...r.rows.minutes);
      out.rows[T.keyframes].push(...r.rows.keyframes);
      out.rows[T.metadata].push(...r.rows.metadata);
      out.rows[T.metadataByKey].push(...r.rows.metadata);
    }
  }
  for (const d of deletedBefore.markers()) {
    out.deletions.push({ tables: RECORDING_TABLES, tenantId: d.tenantId, recordingId: d.recordingId, beforeSeq: d.seq });
  }
  return out;
}

export const recordingProjection: Projection = {
  name: 'recordings',
  filterSubject: ALL_RECORDINGS,
  tables: [...RECORDING_TABLES, T.deleted],
  bodyKinds: ['meta'],
  apply: applyRecordingMessages,
};
