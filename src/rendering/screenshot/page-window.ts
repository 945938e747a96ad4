// A cold screenshot replays from the keyframe at or before its moment, not from the recording's
// first event. That shows the same image: rrweb's Replayer starts every seek at the last Meta at or
// before it anyway (replay-fixes.ts moves a later page view's Meta to its FullSnapshot's time), so a
// page holding the events from that keyframe on replays exactly what a page holding everything does.
// Here: what a replay page can show, and a moment placed from a windowed read alone, or undefined
// where only the whole recording can place it (the renderer then reads it whole, as before).
import type { RrwebEvent } from '../../domain/rrweb-event';
import { type RecordingSummary, summarizeRecording, viewportAt } from './recording-summary';
import type { Viewport } from './screenshot-params';

/**
 * Events after the moment a cold page loads as well: later screenshots of the next minute (a
 * viewer scrubbing forward) seek the warm page instead of reading again. A minute of a busy
 * recording is a few hundred KB.
 */
export const WINDOW_AHEAD_MS = 60_000;

/**
 * What a replay page can show: moments from `from` to `to` (epoch ms; from -Infinity when it holds
 * the recording's start). Seeks are offsets from `firstTs`, its first event. A window's page keeps
 * the summary of its events, to place later moments it holds without reading again.
 */
export interface PageRange {
  firstTs: number;
  from: number;
  to: number;
  summary?: RecordingSummary;
}

/** The events a replay page is opened with, what it can show, and the window it opens in (its first Meta's). */
export interface PageEvents {
  events: readonly RrwebEvent[];
  range: PageRange;
  viewport?: Viewport;
}

/** A screenshot's moment: `at` as asked (part of the image key), `shown` after the first snapshot rule, the window then. */
export interface Moment {
  at: number;
  shown: number;
  viewport?: Viewport;
}

/** The recording's first and last event times, as the windowed read found them. */
export interface Span {
  first: number;
  last: number;
}

export const coversMoment = (range: PageRange, shown: number): boolean => range.from <= shown && shown <= range.to;

/** A page of the whole recording: it shows any moment. */
export function wholePage(events: readonly RrwebEvent[], summary: RecordingSummary): PageEvents {
  return { events, range: { firstTs: summary.firstTs, from: -Infinity, to: Infinity }, viewport: summary.viewport };
}

/**
 * The page of a windowed read (its events from the last keyframe at or before `at`, or from the
 * recording's first event, up to `to`) and the moment `at` as the whole recording places it.
 * Undefined when the window cannot say (see momentIn).
 */
export function windowPage(events: readonly RrwebEvent[], span: Span, at: number, to: number): { page: PageEvents; moment: Moment } | undefined {
  const summary = summarizeRecording(events);
  const snapshot = summary.firstSnapshotTs;
  if (summary.eventCount < 2 || snapshot === undefined) return undefined;
  const fromStart = summary.firstTs <= span.first;
  const range = { firstTs: summary.firstTs, from: fromStart ? -Infinity : snapshot, to: to >= span.last ? Infinity : to, summary };
  const moment = momentIn(range, at);
  return moment && { page: { events, range, viewport: summary.viewport }, moment };
}

/**
 * The moment `at` on a window's page, as the whole recording places it; undefined when the page
 * cannot show it: after what it holds; the recording's first snapshot after what it holds; between
 * its keyframe's Meta and snapshot (the previous page is shown there, which it does not hold); or no
 * window named in it up to the moment (an earlier one would apply).
 */
export function momentIn(range: PageRange, at: number): Moment | undefined {
  const { summary } = range;
  if (!summary || summary.firstSnapshotTs === undefined) return undefined;
  const fromStart = range.from === -Infinity;
  const shown = fromStart ? Math.max(at, summary.firstSnapshotTs) : at;
  if (!coversMoment(range, shown) || (!fromStart && !summary.viewports.some((v) => v.timestamp <= shown))) return undefined;
  return { at, shown, viewport: viewportAt(summary, shown) };
}
