// Rows from one `meta` message (a POST /metadata write): one recording_metadata row per key,
// versioned by the message's stream sequence, so a later write of a key wins.
import { metadataValue, wellFormed } from '../domain/batch-summary';
import type { ProjectionMessage, Row } from './projection';

export type MetadataResult = { rows: Row[] } | { skip: string };

export function metadataRows(m: ProjectionMessage, tenantId: string, recordingId: string): MetadataResult {
  if (!m.data) return { skip: 'metadata payload unavailable (message removed from the stream)' };
  let body: unknown;
  try {
    body = JSON.parse(new TextDecoder().decode(m.data));
  } catch {
    return { skip: 'metadata payload is not JSON' };
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) return { skip: 'metadata payload is not an object' };
  const rows: Row[] = [];
  for (const [key, v] of Object.entries(body as Record<string, unknown>)) {
    const value = metadataValue(v);
    if (key.length === 0 || value === undefined) continue;
    rows.push({ tenant_id: tenantId, recording_id: recordingId, key: wellFormed(key), value: wellFormed(value), seq: m.seq, written_at: m.timeMs });
  }
  return { rows };
}
