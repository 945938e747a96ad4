// The hosted player opens a later moment of a long recording from its nearest keyframe first (issue
// #27): with the recording's span in its config, it asks the events URL for a window from the
// moment (`from`, which the service starts at the keyframe at or before it) to 15 s after it,
// shows that moment, then loads everything before the window and everything after it in the
// background and puts them in place, so seeking and playing on work as in a recording loaded whole.
// The first frame so waits for the keyframe and 15 s of events, whatever the recording's length.
// Pure functions here; the bootstrap does the fetching.

/** How much of the recording after the moment the first window holds (ms). */
export const AHEAD_MS = 15_000;
import type { PlayerPageConfig } from './player-config';
import type { ReplayEvent } from './rrweb-shapes';

/** Where playback starts, from the time selector and the recording's first and last event times; out of range: the nearest end. */
export function startOffset(sel: PlayerPageConfig['time'], first: number, last: number): number {
  const length = last - first;
  const at =
    sel.kind === 'offset'
      ? sel.value < 0
        ? length + sel.value
        : sel.value
      : sel.kind === 'percent'
        ? Math.round((length * sel.value) / 100)
        : sel.value - first;
  return Math.min(length, Math.max(0, at));
}

/** `url` (relative or absolute, same origin) with `params` added to its query. */
export function withParams(url: string, params: Record<string, string>): string {
  const hash = url.indexOf('#');
  const base = hash < 0 ? url : url.slice(0, hash);
  const query = Object.keys(params)
    .map((k) => `${encodeURIComponent(k)}=${encodeURIComponent(params[k])}`)
    .join('&');
  return `${base}${base.indexOf('?') < 0 ? '?' : '&'}${query}`;
}

/** The first request of a page that opens after the recording's start: a window from that moment; undefined to load it whole. */
export function openingWindow(cfg: Pick<PlayerPageConfig, 'eventsUrl' | 'time' | 'span'>): { url: string; at: number; to?: number } | undefined {
  if (!cfg.span || cfg.span.last <= cfg.span.first) return undefined;
  const at = cfg.span.first + startOffset(cfg.time, cfg.span.first, cfg.span.last);
  if (at <= cfg.span.first) return undefined;
  const to = at + AHEAD_MS < cfg.span.last ? at + AHEAD_MS : undefined;
  return { url: withParams(cfg.eventsUrl, to === undefined ? { from: `epoch:${at}` } : { from: `epoch:${at}`, to: `epoch:${to}` }), at, to };
}

/** Whether a window's events can show the moment `at`: a FullSnapshot at or before it. */
export function windowShows(events: readonly ReplayEvent[], at: number): boolean {
  return events.some((e) => e && e.type === 2 && e.timestamp <= at);
}

/** The request for everything before a window whose first event is at `firstTs`. */
export const earlierUrl = (eventsUrl: string, firstTs: number) => withParams(eventsUrl, { to: `epoch:${firstTs - 1}` });

/**
 * The request for everything after a window whose last event is at `lastTs` (the service starts it at
 * the keyframe at or before, so it repeats part of the window: appendLater drops that).
 */
export const laterUrl = (eventsUrl: string, lastTs: number) => withParams(eventsUrl, { from: `epoch:${lastTs + 1}` });

/** Appends the events of `later` after the last of `events` (both sorted); returns how many were added. */
export function appendLater(events: ReplayEvent[], later: readonly ReplayEvent[]): number {
  const last = events.length ? events[events.length - 1].timestamp : -Infinity;
  const add = later.filter((e) => e.timestamp > last);
  for (const e of add) events.push(e);
  return add.length;
}

/**
 * Puts `earlier` (sorted, as the service sends them) in front of `events` (rrweb's own sorted list),
 * dropping any at or after its first event; returns how many were added.
 */
export function prependEarlier(events: ReplayEvent[], earlier: readonly ReplayEvent[]): number {
  const first = events.length ? events[0].timestamp : Infinity;
  const add = earlier.filter((e) => e.timestamp < first);
  events.unshift(...add);
  return add.length;
}
