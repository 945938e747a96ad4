// Time windows [since, ∞) of recording_timeline for the listing: the first one sized from the last
// page's density, then widened until it holds the page and one more, or everything. Sizes are hints:
// a window is exact for any since, so a poor guess costs reads, never a wrong page. With a range of
// starts [from, to), windows end at `to` and stop widening at `from` (a narrow range reads little).
import type { ClickHouse } from '../infrastructure/clickhouse/clickhouse-client';
import type { StartedRange } from './listing-page.util';
import { TimelineSql } from './recordings-timeline.sql';

export interface Window {
  since: number;
  top: number;
  width: number;
}

/** From the last page: milliseconds per kept recording, and the newest start seen. */
export interface Density {
  msPer: number;
  newest: number;
}

const FIRST_WINDOW_MS = 10 * 60_000;
const MAX_ROUNDS = 16;

/**
 * The first window for `want` recordings. `slack`: how many times the recordings wanted it should hold
 * by the last page's density. It ends at the newest start seen, not at the clock: a tenant idle for an
 * hour would otherwise start from an empty window.
 */
export function firstWindow(known: Density | undefined, want: number, now: number, slack = 2, range?: StartedRange): Window {
  const width = known ? Math.max(1000, Math.ceil(known.msPer * want * slack)) : FIRST_WINDOW_MS;
  const newest = known ? Math.min(now, known.newest + 1) : now;
  // Clamped to a range of starts: nothing newer than its end is wanted, nothing older than its start.
  const top = range?.to !== undefined ? Math.min(newest, range.to) : newest;
  return { since: Math.max(top - width, floorOf(range)), top, width };
}

/** The oldest `since` a window needs for a range of starts: its start, or everything. */
const floorOf = (range?: StartedRange) => (range?.from !== undefined ? Math.max(Number.MIN_SAFE_INTEGER, range.from) : Number.MIN_SAFE_INTEGER);

/**
 * The next window when this one held too few: null when it already holds everything. `held`: how many
 * recordings it held (sizes the widening); a window holding none restarts from the newest older row.
 */
export async function widen(
  ch: ClickHouse,
  tenantId: string,
  w: Window,
  want: number,
  held: number,
  round: number,
  range?: StartedRange,
): Promise<Window | null> {
  const floor = floorOf(range);
  if (w.since <= floor) return null;
  const [older] = await ch.rows<{ n: string; newest: string }>(TimelineSql.before(tenantId, w.since));
  if (!older || Number(older.n) === 0) return null;
  if (round >= MAX_ROUNDS) return { ...w, since: floor };
  const newest = Number(older.newest);
  const top = held === 0 ? newest + 1 : w.top; // a gap: start again from the newest older row
  const width = held === 0 ? w.width : w.width * Math.min(64, Math.max(2, Math.ceil((2 * want) / held)));
  return { since: Math.max(floor, Math.min(top - width, newest)), top, width };
}

/** The density of a page whose `kept` recordings started in [from, newest]; undefined when it tells nothing. */
export function densityOf(kept: number, from: number, newest: number): Density | undefined {
  if (kept <= 0 || from <= Number.MIN_SAFE_INTEGER || !Number.isFinite(newest)) return undefined;
  return { msPer: Math.max(1, (newest - from) / kept), newest };
}
