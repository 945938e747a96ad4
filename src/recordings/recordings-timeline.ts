// The unfiltered listing page from recording_timeline: a window [since, ∞) is widened until it holds
// offset + limit + 1 recordings that started in it (or holds everything), so a page reads a few
// thousand recent rows instead of every row of the tenant. Exact: a recording that started before
// `since` is dropped (TimelineSql.spanning) and ranks after every recording kept.
import type { ClickHouse } from '../infrastructure/clickhouse/clickhouse-client';
import { TimelineSql } from './recordings-timeline.sql';

export interface TimelinePage {
  /** Up to limit + 1 recordings, newest first by first event time, ties by recording id descending. */
  rows: { recording_id: string; started_at: string }[];
  /** Every returned recording started at or after this (its batches are all in the window). */
  since: number;
}

const FIRST_WINDOW_MS = 10 * 60_000;
const MAX_ROUNDS = 16;
// Milliseconds per recording seen last time, per tenant: the next first window is sized from it.
const density = new Map<string, number>();
const DENSITY_TENANTS = 10_000;

export async function timelinePage(ch: ClickHouse, tenantId: string, limit: number, offset: number, now = Date.now()): Promise<TimelinePage> {
  const want = offset + limit + 1;
  const known = density.get(tenantId);
  let width = known ? Math.max(1000, Math.ceil(known * want * 2)) : FIRST_WINDOW_MS;
  let top = now;
  let since = top - width;
  let cap = want * 2;
  for (let round = 1; ; round++) {
    const [candidates, spanning] = await Promise.all([
      ch.rows<{ recording_id: string; started_at: string }>(TimelineSql.candidates(tenantId, since, cap)),
      ch.rows<{ recording_id: string }>(TimelineSql.spanning(tenantId, since)),
    ]);
    const drop = new Set(spanning.map((r) => r.recording_id));
    const kept = candidates.filter((r) => !drop.has(r.recording_id));
    if (kept.length >= want) return done(tenantId, kept, since, offset, limit, now);
    if (candidates.length >= cap) {
      cap *= 4; // more dropped than expected: the same window, more candidates
      continue;
    }
    const [older] = await ch.rows<{ n: string; newest: string }>(TimelineSql.before(tenantId, since));
    if (!older || Number(older.n) === 0 || round >= MAX_ROUNDS) {
      if (round >= MAX_ROUNDS && Number(older?.n ?? 0) > 0) since = Number.MIN_SAFE_INTEGER;
      else return done(tenantId, kept, since, offset, limit, now);
      continue;
    }
    const newest = Number(older.newest);
    if (candidates.length === 0) top = newest + 1; // a gap: start again from the newest older row
    else width *= Math.min(64, Math.max(2, Math.ceil((2 * want) / Math.max(1, kept.length))));
    since = Math.max(Number.MIN_SAFE_INTEGER, Math.min(top - width, newest));
  }
}

function done(tenantId: string, kept: TimelinePage['rows'], since: number, offset: number, limit: number, now: number): TimelinePage {
  if (kept.length > 0 && since > Number.MIN_SAFE_INTEGER) {
    if (density.size >= DENSITY_TENANTS && !density.has(tenantId)) density.delete(density.keys().next().value as string);
    density.set(tenantId, Math.max(1, (now - since) / kept.length));
  }
  return { rows: kept.slice(offset, offset + limit + 1), since };
}
