// The recordings list: newest first, filters and page kept in the URL (the API's own parameter names,
// so a bookmarked view is also the API query), thumbnails that appear when rendered.
import { useEffect, useState } from 'preact/hooks';
import { ActivityFields, SecondsInput } from '../activity-fields';
import { ACTIVITY_PARAMS, activityForm, setActivityParams } from '../activity-filters';
import { callPrefetched, explain } from '../api';
import { isoToLocal, localToIso } from '../datetime-local';
import { duration, plural, when } from '../format';
import { navigate, useLocation } from '../router';
import { Thumbnail } from '../thumbnail';

export interface Recording {
  recordingId: string;
  startedAt: number | null;
  duration: number;
  pageViews: number;
  firstUrl: string | null;
  viewport: { width: number; height: number } | null;
  metadata: Record<string, string>;
  live: boolean;
  eventCount: number;
  bytes: number;
  links: { thumbnail: string; player: string };
  activity: { pages: number; clicks: number; errors: number; activeTime: number };
}

const PAGE = 50;
/** Thumbnails fetched at once (the first rows, in view on a laptop screen); the others when scrolled near. */
const EAGER_THUMBNAILS = 8;
/** Filters start open on a wide window, folded on a phone (the list first). */
const WIDE = window.matchMedia('(min-width: 761px)').matches;
/** Listing parameters the console keeps in its URL and passes on as they are. */
const PASSED = new RegExp(`^(metadata\\[.+\\]|minDuration|maxDuration|startedAfter|startedBefore|live|${ACTIVITY_PARAMS.join('|')}|offset)$`);

export function listQuery(q: URLSearchParams): string {
  const out = new URLSearchParams();
  q.forEach((v, k) => {
    if (PASSED.test(k) && v !== '') out.append(k, v);
  });
  return out.toString();
}

/** The listing call of the recordings page at this URL query. */
export function listingPath(q: URLSearchParams): string {
  const qs = listQuery(q);
  return `/recordings?limit=${PAGE}${qs ? `&${qs}` : ''}`;
}

export function RecordingsPage() {
  const loc = useLocation();
  const qs = listQuery(loc.query);
  const [data, setData] = useState<{ recordings: Recording[]; hasMore: boolean } | null>(null);
  const [error, setError] = useState('');
  useEffect(() => {
    let gone = false;
    setError('');
    callPrefetched<{ recordings: Recording[]; hasMore: boolean }>(listingPath(loc.query)).then(
      (d) => !gone && setData(d),
      (e) => !gone && (setError(explain(e)), setData(null)),
    );
    return () => void (gone = true);
  }, [qs]);

  const offset = Number(loc.query.get('offset') ?? 0) || 0;
  const go = (changes: Record<string, string | null>) => {
    const q = new URLSearchParams(listQuery(loc.query));
    for (const [k, v] of Object.entries(changes)) {
      if (v === null || v === '') q.delete(k);
      else q.set(k, v);
    }
    const s = q.toString();
    navigate(`/console/recordings${s ? `?${s}` : ''}`);
  };
  const filtered = [...loc.query.keys()].some((k) => PASSED.test(k) && k !== 'offset');

  return (
    <section>
      <h1>Recordings</h1>
      <details class="filter-box" open={filtered || WIDE}>
        <summary>Filters{filtered ? ' (active)' : ''}</summary>
        <Filters query={loc.query} onApply={(q) => navigate(`/console/recordings${q ? `?${q}` : ''}`)} />
      </details>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {!data && !error && <p class="muted">Loading…</p>}
      {data && data.recordings.length === 0 && (
        <div class="empty">
          {filtered ? (
            <p>No recording matches these filters.</p>
          ) : (
            <>
              <p>No recordings yet.</p>
              <p class="muted">
                Add the recorder to a page (<code>/sdk/recorder.js</code> with your public key, see the README); recordings show up here about a second after
                their first events arrive.
              </p>
            </>
          )}
        </div>
      )}
      {data && data.recordings.length > 0 && (
        <ul class="cards" aria-label="Recordings, newest first">
          {data.recordings.map((r, i) => (
            <RecordingCard r={r} key={r.recordingId} eager={i < EAGER_THUMBNAILS} />
          ))}
        </ul>
      )}
      {data && (offset > 0 || data.hasMore) && (
        <nav class="pager" aria-label="Pages">
          <button disabled={offset === 0} onClick={() => go({ offset: String(Math.max(0, offset - PAGE)) })}>
            Newer
          </button>
          <span class="muted">
            {offset + 1}–{offset + data.recordings.length}
          </span>
          <button disabled={!data.hasMore} onClick={() => go({ offset: String(offset + PAGE) })}>
            Older
          </button>
        </nav>
      )}
    </section>
  );
}

function RecordingCard({ r, eager }: { r: Recording; eager: boolean }) {
  const href = `/console/recordings/${r.recordingId}`;
  return (
    <li class="card">
      {/* The title below is the same link, for keyboards and screen readers; this one is for the mouse. */}
      <a href={href} class="thumb-link" tabIndex={-1} aria-hidden="true">
        <Thumbnail src={r.links.thumbnail} viewport={r.viewport} eager={eager} />
        {r.live && <span class="badge live">LIVE</span>}
      </a>
      <div class="card-body">
        <a href={href} class="title">
          {r.firstUrl ?? r.recordingId}
        </a>
        <p class="facts">
          <span>{when(r.startedAt)}</span>
          <span>{duration(r.duration)}</span>
          <span>{plural(r.pageViews, 'page')}</span>
          {r.viewport && (
            <span>
              {r.viewport.width}×{r.viewport.height}
            </span>
          )}
          <span>{plural(r.activity.clicks, 'click')}</span>
          <span>active {duration(r.activity.activeTime)}</span>
          {r.activity.errors > 0 && <span class="warn">{plural(r.activity.errors, 'error')}</span>}
        </p>
        <ul class="chips" aria-label="Metadata">
          {Object.entries(r.metadata).map(([k, v]) => (
            <li>
              <a href={`/console/recordings?${new URLSearchParams({ [`metadata[${k}]`]: v })}`} title={`Only recordings with ${k} = ${v}`}>
                {k}: {v}
              </a>
            </li>
          ))}
        </ul>
      </div>
    </li>
  );
}

function Filters(props: { query: URLSearchParams; onApply: (q: string) => void }) {
  const initial = () => {
    const meta: [string, string][] = [];
    props.query.forEach((v, k) => {
      const m = /^metadata\[(.+)\]$/.exec(k);
      if (m) meta.push([m[1], v]);
    });
    if (meta.length === 0) meta.push(['', '']);
    const sec = (k: string) => (props.query.get(k) ? String(Number(props.query.get(k)) / 1000) : '');
    return {
      meta,
      min: sec('minDuration'),
      max: sec('maxDuration'),
      after: isoToLocal(props.query.get('startedAfter')),
      before: isoToLocal(props.query.get('startedBefore')),
      live: props.query.get('live') === 'true',
      activity: activityForm(props.query),
    };
  };
  const [f, setF] = useState(initial);
  useEffect(() => setF(initial()), [props.query.toString()]);

  const apply = (e: Event) => {
    e.preventDefault();
    const q = new URLSearchParams();
    for (const [k, v] of f.meta) if (k.trim() !== '') q.append(`metadata[${k.trim()}]`, v);
    if (f.min) q.set('minDuration', String(Math.round(Number(f.min) * 1000)));
    if (f.max) q.set('maxDuration', String(Math.round(Number(f.max) * 1000)));
    // datetime-local is the viewer's local time: sent as ISO 8601 with its zone (UTC).
    if (localToIso(f.after)) q.set('startedAfter', localToIso(f.after));
    if (localToIso(f.before)) q.set('startedBefore', localToIso(f.before));
    setActivityParams(q, f.activity);
    if (f.live) q.set('live', 'true');
    props.onApply(q.toString());
  };
  const setMeta = (i: number, j: 0 | 1, v: string) =>
    setF({ ...f, meta: f.meta.map((m, n) => (n === i ? ((j === 0 ? [v, m[1]] : [m[0], v]) as [string, string]) : m)) });

  return (
    <form class="filters" onSubmit={apply} aria-label="Filters">
      <fieldset>
        <legend>Metadata (all must match)</legend>
        {f.meta.map(([k, v], i) => (
          <div class="row">
            <label>
              <span class="sr-only">Key {i + 1}</span>
              <input placeholder="key" value={k} onInput={(e) => setMeta(i, 0, (e.target as HTMLInputElement).value)} />
            </label>
            <span aria-hidden="true">=</span>
            <label>
              <span class="sr-only">Value {i + 1}</span>
              <input placeholder="value" value={v} onInput={(e) => setMeta(i, 1, (e.target as HTMLInputElement).value)} />
            </label>
            {f.meta.length > 1 && (
              <button type="button" class="quiet" aria-label={`Remove filter ${i + 1}`} onClick={() => setF({ ...f, meta: f.meta.filter((_, n) => n !== i) })}>
                ×
              </button>
            )}
          </div>
        ))}
        <button type="button" class="quiet" onClick={() => setF({ ...f, meta: [...f.meta, ['', '']] })}>
          + Add a metadata filter
        </button>
      </fieldset>
      <fieldset>
        <legend>Duration (seconds)</legend>
        <div class="row">
          <SecondsInput label="At least" value={f.min} onInput={(min) => setF({ ...f, min })} />
          <SecondsInput label="At most" value={f.max} onInput={(max) => setF({ ...f, max })} />
        </div>
      </fieldset>
      <fieldset>
        <legend>Started (your local time)</legend>
        <div class="row">
          <label>
            Started after <input type="datetime-local" step="1" value={f.after} onInput={(e) => setF({ ...f, after: (e.target as HTMLInputElement).value })} />
          </label>
          <label>
            Started before{' '}
            <input type="datetime-local" step="1" value={f.before} onInput={(e) => setF({ ...f, before: (e.target as HTMLInputElement).value })} />
          </label>
        </div>
      </fieldset>
      <ActivityFields value={f.activity} onChange={(activity) => setF({ ...f, activity })} />
      <fieldset>
        <legend>State</legend>
        <label class="check">
          <input type="checkbox" checked={f.live} onChange={(e) => setF({ ...f, live: (e.target as HTMLInputElement).checked })} /> Live only
        </label>
      </fieldset>
      <div class="actions">
        <button type="submit">Apply filters</button>
        <button type="button" class="quiet" onClick={() => props.onApply('')}>
          Clear
        </button>
      </div>
    </form>
  );
}
