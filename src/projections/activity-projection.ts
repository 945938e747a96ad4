// The activity projection (docs/activity.md): every `ev` message of TAPEDECK_EVENTS is decoded
// (payloads by direct get: its consumer is headers-only like every projector's) into the rows of
// recording_activity, recording_activity_nodes and recording_activity_batches (and all of them again,
// time-sorted, in recording_activity_timeline), versioned by stream
// sequence. Its own durable consumer keeps the decoding off ingestion and off the recordings
// projection's lag. Deletion as in recording-projection.ts: a `del` marker at seq D removes the
// recording's rows with seq < D, and messages of the recording below D in the same fetch give none;
// reads apply the same rule through deleted_recordings (written by the recordings projection).
import { ALL_RECORDINGS, parseSubject } from '../infrastructure/nats/subjects';
import { activityRows, needsPayload } from './activity-rows';
import { DeletionMarkers } from './deletion-markers';
import type { Projection, ProjectionMessage, ProjectionOutput } from './projection';
import { T } from './projection-tables';

const ACTIVITY_TABLES = [T.activity, T.activityNodes, T.activityBatches, T.activityTimeline];

export function applyActivityMessages(messages: readonly ProjectionMessage[]): ProjectionOutput {
  const out: ProjectionOutput = { rows: Object.fromEntries(ACTIVITY_TABLES.map((t) => [t, []])), deletions: [], skipped: [] };
  const deletedBefore = new DeletionMarkers(messages);
  for (const m of messages) {
    const s = parseSubject(m.subject);
    if (!s) {
      out.skipped.push({ seq: m.seq, reason: `unexpected subject ${m.subject}` });
      continue;
    }
    if (s.kind !== 'ev' || deletedBefore.deletes(s.tenantId, s.recordingId, m.seq)) continue;
    const r = activityRows(m, s.tenantId, s.recordingId);
    if ('skip' in r) {
      out.skipped.push({ seq: m.seq, reason: r.skip });
      continue;
    }
    out.rows[T.activity].push(...r.rows.items);
    out.rows[T.activityNodes].push(...r.rows.nodes);
    if (r.rows.batch) out.rows[T.activityBatches].push(r.rows.batch);
    out.rows[T.activityTimeline].push(...r.rows.timeline);
  }
  for (const d of deletedBefore.markers()) {
    out.deletions.push({ tables: ACTIVITY_TABLES, tenantId: d.tenantId, recordingId: d.recordingId, beforeSeq: d.seq });
  }
  return out;
}

export const activityProjection: Projection = {
  name: 'activity',
  filterSubject: ALL_RECORDINGS,
  tables: ACTIVITY_TABLES,
  bodyKinds: ['ev'],
  // A batch stored with its activity (Td-Activity, computed at ingestion) needs no payload.
  needsBody: needsPayload,
  apply: applyActivityMessages,
};
