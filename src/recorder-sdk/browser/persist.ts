// Unacknowledged batches saved to sessionStorage when the page may go away, and re-queued by the
// next page of the same tab. Bounded: the newest batches that fit in `maxChars` are kept.
export interface PersistedBatch {
  id: string;
  body: string;
  events: number;
}

const BATCH_ID = /^[A-Za-z0-9_.:-]{1,128}$/;

export function encodePending(batches: readonly PersistedBatch[], maxChars = 2 * 1024 * 1024): string | null {
  const kept: PersistedBatch[] = [];
  let chars = 0;
  for (let i = batches.length - 1; i >= 0; i--) {
    const b = batches[i];
    const size = b.body.length + b.id.length + 32;
    if (chars + size > maxChars) break;
    chars += size;
    kept.push({ id: b.id, body: b.body, events: b.events });
  }
  if (kept.length === 0) return null;
  kept.reverse();
  return JSON.stringify({ v: 1, batches: kept });
}

export function decodePending(text: string | null): PersistedBatch[] {
  if (!text) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return [];
  }
  const list = (parsed as { batches?: unknown } | null)?.batches;
  if (!Array.isArray(list)) return [];
  const out: PersistedBatch[] = [];
  for (const item of list) {
    const b = item as Partial<PersistedBatch> | null;
    if (b && typeof b.id === 'string' && BATCH_ID.test(b.id) && typeof b.body === 'string' && b.body.startsWith('[') && typeof b.events === 'number') {
      out.push({ id: b.id, body: b.body, events: b.events });
    }
  }
  return out;
}
