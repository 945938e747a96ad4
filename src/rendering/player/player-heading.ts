// What the hosted player page is titled: the recording as a person recognises it (its first page,
// when it started, its metadata), or what eventsUrl plays instead of it. Text only: nothing here is
// a link or loads anything, so showing it contacts no recorded host.

/** What the heading reads of a recording (its detail, recordings.dto.ts). */
export interface HeadingRecording {
  firstUrl: string | null;
  startedAt: number | null;
  duration: number;
  pageViews: number;
  metadata: Record<string, string>;
}

export interface PlayerHeading {
  /** The page's <title> and its header's heading. */
  title: string;
  /** Short facts under the heading (duration, page views, metadata as key: value, id), in order. */
  details: string[];
}

const MAX_METADATA = 8;
const MAX_TEXT = 120;
const API_KEY = /(?:secret|public)_key_svc_\S*/g;

/** At most `max` characters, without an API key someone put in a URL or a metadata value. */
const text = (s: string, max = MAX_TEXT) => {
  const clean = s.replace(API_KEY, '[key]').replace(/\s+/g, ' ').trim();
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
};

/**
 * A page's URL without scheme, query and fragment: those can carry tokens and personal data, and a
 * title ends up in browser history, bookmarks and screenshots of the tab.
 */
export function shortUrl(href: string): string {
  try {
    const u = new URL(href);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return text(`${u.protocol}${u.pathname}`);
    return text(`${u.host}${u.pathname === '/' ? '' : decodeSafely(u.pathname)}`);
  } catch {
    return text(href.split(/[?#]/)[0]);
  }
}

/** Epoch ms as `2026-11-28 03:11:05 UTC`: the same for every viewer, whatever their zone. */
export const utcTime = (ms: number) => `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} UTC`;

export function humanDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${s % 60} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

/**
 * The page's heading. With `eventsUrl` naming something else than this recording's events (a replay,
 * another recording), that; else the recording: its first page and start, or its id before the
 * projection has it. A `live` page says so where the duration was (it grows while the page is open).
 */
export function playerHeading(recordingId: string, eventsUrl?: string, recording?: HeadingRecording, live = false): PlayerHeading {
  const other = eventsUrl === undefined ? undefined : otherPlayed(recordingId, eventsUrl);
  if (other) return { title: other, details: [] };
  if (!recording || recording.startedAt === null) return { title: `Recording ${recordingId}`, details: [] };
  const page = recording.firstUrl ? shortUrl(recording.firstUrl) : `Recording ${recordingId}`;
  const keys = Object.keys(recording.metadata).sort();
  const metadata = keys.slice(0, MAX_METADATA).map((k) => `${text(k, 40)}: ${text(recording.metadata[k], 60)}`);
  return {
    title: `${page} · ${utcTime(recording.startedAt)}`,
    details: [
      live ? 'live view' : humanDuration(recording.duration),
      ...(recording.pageViews > 1 ? [`${recording.pageViews} page views`] : []),
      ...metadata,
      ...(keys.length > MAX_METADATA ? [`+${keys.length - MAX_METADATA} more`] : []),
      `id ${recordingId}`,
    ],
  };
}

/** What eventsUrl plays when it is not this recording's events (a group replayed through one member's page said "Recording <that member>"). */
function otherPlayed(recordingId: string, eventsUrl: string): string | undefined {
  let path: string;
  try {
    path = new URL(eventsUrl, `http://service/recordings/${recordingId}/player`).pathname;
  } catch {
    return undefined;
  }
  const part = (s: string) => text(decodeSafely(s), 200);
  const group = /\/replays\/([^/]+)\/([^/]+)(?:\/events)?$/.exec(path);
  if (group) return `Replay of ${part(group[1])} = ${part(group[2])}`;
  if (/\/replays?$/.test(path)) return 'Replay';
  const other = /\/recordings\/([^/]+)\/events$/.exec(path);
  return other && decodeSafely(other[1]).toLowerCase() !== recordingId ? `Recording ${part(other[1])}` : undefined;
}

function decodeSafely(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
