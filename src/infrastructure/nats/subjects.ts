// Stream and subject names: one stream holds every recording's history, keyed by subject
//   td.rec.<tenantId>.<recordingId>.ev    event batches (one message per batch, or chunks of one)
//   td.rec.<tenantId>.<recordingId>.meta  metadata writes (POST /metadata)
//   td.rec.<tenantId>.<recordingId>.del   deletion markers
//   td.rec.<tenantId>.<recordingId>.kf    server-made keyframes (not events of the recording: docs/keyframes.md)
// Tenant ids are [A-Za-z0-9_-] and recording ids lowercase UUIDs, so both are valid subject tokens.
export const EVENTS_STREAM = 'TAPEDECK_EVENTS';
export const SUBJECT_ROOT = 'td.rec';
export const ALL_RECORDINGS = `${SUBJECT_ROOT}.>`;
export const TENANTS_BUCKET = 'tapedeck_tenants';
/** Shared state of the per-tenant limits (token buckets, open WebSockets), in memory. */
export const LIMITS_BUCKET = 'tapedeck_limits';
/** Console sessions shared by every instance (auth/console-sessions.ts), expiring with the sessions. */
export const SESSIONS_BUCKET = 'tapedeck_sessions';

export type SubjectKind = 'ev' | 'meta' | 'del' | 'kf';
const KINDS: ReadonlySet<string> = new Set<SubjectKind>(['ev', 'meta', 'del', 'kf']);

export const recordingSubject = (tenantId: string, recordingId: string, kind: SubjectKind) => `${SUBJECT_ROOT}.${tenantId}.${recordingId}.${kind}`;
export const recordingWildcard = (tenantId: string, recordingId: string) => `${SUBJECT_ROOT}.${tenantId}.${recordingId}.>`;
/** Every message of a tenant. */
export const tenantWildcard = (tenantId: string) => `${SUBJECT_ROOT}.${tenantId}.>`;

export function parseSubject(subject: string): { tenantId: string; recordingId: string; kind: SubjectKind } | null {
  const parts = subject.split('.');
  if (parts.length !== 5 || `${parts[0]}.${parts[1]}` !== SUBJECT_ROOT) return null;
  const kind = parts[4];
  if (!KINDS.has(kind)) return null;
  return { tenantId: parts[2], recordingId: parts[3], kind: kind as SubjectKind };
}

/** Message headers written at ingestion. */
export const H = {
  batch: 'Td-Batch',
  chunk: 'Td-Chunk',
  summary: 'Td-Summary',
  /** A server-made keyframe's moment and outcome (domain/server-keyframes.ts: KeyframeHeader). */
  keyframe: 'Td-Keyframe',
  /**
   * On a sealed batch record (an `ev` message without payload that replaced a stored batch once its
   * recording was archived): JSON `SealedRef` (sealed-record.ts), where the payload is now.
   */
  sealed: 'Td-Sealed',
  /**
   * On a batch stored in one message: its activity as the activity projection reads it (JSON
   * BatchActivity, domain/activity/activity-header.ts), computed at ingestion; absent when too big.
   */
  activity: 'Td-Activity',
} as const;
/** Object Store bucket of recording archives (docs/archives.md). */
export const ARCHIVES_BUCKET = 'tapedeck_archives';
/** Key-value bucket of seal jobs and their outcome, one entry per recording. */
export const SEALS_BUCKET = 'tapedeck_seals';
