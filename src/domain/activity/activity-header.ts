// A batch's activity (batch-activity.ts) computed where ingestion has its events parsed anyway, and
// stored with the batch as the Td-Activity header, so the activity projection reads it instead of
// fetching and parsing the payload again (that parse cost more than ingestion's own). Deterministic:
// the header holds exactly what the projection computes from the payload, so a batch with it and a
// batch without (stored before, chunked, or too active for a header) give the same rows.
import { headerJson } from '../batch-summary';
import type { RrwebEvent } from '../rrweb-event';
import { BatchActivity, batchActivity } from './batch-activity';

/** Largest Td-Activity header; a batch whose activity is bigger is decoded from its payload by the projection. */
export const MAX_ACTIVITY_HEADER_BYTES = 16 * 1024;

/** The Td-Activity header of a batch; undefined when too big or not computable (the projection then reads the payload). */
export function activityHeader(events: readonly RrwebEvent[]): string | undefined {
  let a: BatchActivity;
  try {
    a = batchActivity(events);
  } catch {
    return undefined;
  }
  const json = headerJson(a);
  return json.length <= MAX_ACTIVITY_HEADER_BYTES ? json : undefined;
}

/** A Td-Activity header read back; undefined when absent or not of the shape written (the payload then decides). */
export function parseActivityHeader(raw: string | undefined): BatchActivity | undefined {
  if (!raw) return undefined;
  let a: Partial<BatchActivity> | null;
  try {
    a = JSON.parse(raw) as Partial<BatchActivity> | null;
  } catch {
    return undefined;
  }
  if (!a || typeof a !== 'object') return undefined;
  const ok =
    Array.isArray(a.items) &&
    Array.isArray(a.nodes) &&
    Array.isArray(a.activeSeconds) &&
    Array.isArray(a.changes) &&
    typeof a.inputs === 'number' &&
    typeof a.minTs === 'number' &&
    typeof a.maxTs === 'number';
  return ok ? (a as BatchActivity) : undefined;
}
