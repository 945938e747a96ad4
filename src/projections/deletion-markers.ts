// The deletion markers (`del` messages) of one fetched batch, shared by every projection: a message of
// a recording below its marker in the same batch produces nothing, and the marker's deletion removes
// the rows written before (recording-projection.ts states the rule).
import { parseSubject } from '../infrastructure/nats/subjects';
import type { ProjectionMessage } from './projection';

export type Marker = { tenantId: string; recordingId: string; seq: number };

const keyOf = (tenantId: string, recordingId: string) => `${tenantId}\u0000${recordingId}`;

export class DeletionMarkers {
  private readonly latest = new Map<string, Marker>();

  constructor(messages: readonly ProjectionMessage[]) {
    for (const m of messages) {
      const s = parseSubject(m.subject);
      if (s?.kind !== 'del') continue;
      const k = keyOf(s.tenantId, s.recordingId);
      if ((this.latest.get(k)?.seq ?? 0) < m.seq) this.latest.set(k, { tenantId: s.tenantId, recordingId: s.recordingId, seq: m.seq });
    }
  }

  /** True when a marker of the batch deletes this message of the recording. */
  deletes(tenantId: string, recordingId: string, seq: number): boolean {
    return seq < (this.latest.get(keyOf(tenantId, recordingId))?.seq ?? 0);
  }

  /** The latest marker of each recording in the batch. */
  markers(): Marker[] {
    return [...this.latest.values()];
  }
}
