// A listing page as the read model answers it (listing.planner.ts and its plans), and the listing's order.
import type { MetadataRow, SummaryRow } from './recording.view';

export type PageRow = { recording_id: string; started_at: string };

export interface PageDetails {
  summaries: SummaryRow[];
  metadata: MetadataRow[];
}

export interface ListingPage {
  /** Up to limit + 1 recordings from `offset`, newest first by first event time, ties by recording id descending. */
  rows: PageRow[];
  /** Summaries and metadata of (at least) rows[0, limit). */
  details: PageDetails;
}

/** A range of start times [from, to), epoch ms; an absent end is open. */
export interface StartedRange {
  from?: number;
  to?: number;
}

/** Whether a start time is in the range (every start is in no range). */
export const startedIn = (startedAt: number, range?: StartedRange) =>
  !range || ((range.from === undefined || startedAt >= range.from) && (range.to === undefined || startedAt < range.to));

export const NO_DETAILS: PageDetails = { summaries: [], metadata: [] };

/** Candidates read beyond those a page still wants when some may be dropped on verification. */
export const MARGIN = 8;

/** True if `a` comes after `b` in the listing's order (started_at DESC, then recording_id DESC, bytewise like ClickHouse). */
export function ranksAfter(a: PageRow, b: PageRow): boolean {
  const sa = Number(a.started_at);
  const sb = Number(b.started_at);
  if (sa !== sb) return sa < sb;
  return Buffer.compare(Buffer.from(a.recording_id), Buffer.from(b.recording_id)) < 0;
}

export const earliest = (rows: readonly PageRow[]) => Math.min(...rows.map((r) => Number(r.started_at)));

/** A promise that is awaited later, or never: its failure must not become an unhandled rejection. */
export function later<T>(p: Promise<T>): Promise<T> {
  p.catch(() => undefined);
  return p;
}
