// One recording: the hosted player in a frame (same origin: the page seeks it through rrweb-player),
// its facts and metadata, the activity timeline (each item seeks the player), Share and Delete.
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, call, enc, explain } from '../api';
import { bytes, clock, duration, plural, when } from '../format';
import { navigate } from '../router';
import type { Recording } from './recordings';

interface ActivityItem {
  kind: 'pageView' | 'click' | 'rageClick' | 'error' | 'networkFailure';
  offset: number;
  url?: string;
  title?: string;
  text?: string;
  selector?: string;
  /** A click's position in the page (CSS pixels), and whether it changed nothing (dead). */
  x?: number;
  y?: number;
  dead?: boolean;
  /** A rage click's number of clicks. */
  clicks?: number;
  message?: string;
  method?: string;
  status?: number;
}

/** The activity summary of GET /recordings/{id}/activity (docs/activity.md). */
interface ActivitySummary {
  clicks: number;
  rageClicks: number;
  deadClicks: number;
  errors: number;
  networkFailures: number;
  activeTime: number;
}

interface PlayerWindow extends Window {
  __tapedeck?: { ready: boolean; error?: string; player?: { goto(offset: number, play?: boolean): void } };
}

const LIFETIMES: [number, string][] = [
  [3600, '1 hour'],
  [86400, '1 day'],
  [7 * 86400, '7 days'],
];

export function RecordingPage({ id }: { id: string }) {
  const [rec, setRec] = useState<Recording | null>(null);
  const [error, setError] = useState<{ status: number; text: string } | null>(null);
  const [items, setItems] = useState<ActivityItem[] | null>(null);
  const [summary, setSummary] = useState<ActivitySummary | null>(null);
  const frame = useRef<HTMLIFrameElement>(null);

  useEffect(() => {
    call<Recording>(`/recordings/${enc(id)}`).then(setRec, (e) => setError({ status: e instanceof ApiError ? e.status : 0, text: explain(e) }));
    call<{ items: ActivityItem[]; summary: ActivitySummary }>(`/recordings/${enc(id)}/activity`).then(
      (a) => (setItems(a.items), setSummary(a.summary)),
      () => setItems([]),
    );
  }, [id]);

  if (error) {
    return (
      <section class="empty" role="alert">
        <h1>{error.status === 404 ? 'This recording does not exist' : 'The recording could not be loaded'}</h1>
        <p>{error.status === 404 ? 'It may have been deleted, or it belongs to another tenant.' : error.text}</p>
        <p>
          <a href="/console/recordings">Back to the recordings</a>
        </p>
      </section>
    );
  }

  const seek = (offset: number) => {
    const w = frame.current?.contentWindow as PlayerWindow | null | undefined;
    w?.__tapedeck?.player?.goto(Math.max(0, offset), true);
    frame.current?.focus();
  };

  // The player starts loading at once, beside the detail (its first frame is what a viewer waits
  // for); a live recording's detail then switches it to the live view.
  return (
    <section class="recording">
      <p>
        <a href="/console/recordings">← Recordings</a>
      </p>
      <h1 class="ellipsis">{rec ? (rec.firstUrl ?? rec.recordingId) : 'Recording'}</h1>
      {!rec && <p class="muted">Loading…</p>}
      {rec && (
        <p class="facts">
          <span>{when(rec.startedAt)}</span>
          <span>{duration(rec.duration)}</span>
          <span>{plural(rec.pageViews, 'page')}</span>
          {rec.viewport && (
            <span>
              {rec.viewport.width}×{rec.viewport.height}
            </span>
          )}
          <span>{rec.eventCount} events</span>
          <span>{bytes(rec.bytes)}</span>
          {rec.live && <span class="badge live">LIVE</span>}
        </p>
      )}
      {summary && (
        <p class="facts" aria-label="Activity">
          <span>active {duration(summary.activeTime)}</span>
          <span>{plural(summary.clicks, 'click')}</span>
          {summary.rageClicks > 0 && <span class="warn">{plural(summary.rageClicks, 'rage click')}</span>}
          {summary.deadClicks > 0 && <span class="warn">{plural(summary.deadClicks, 'dead click')}</span>}
          {summary.errors > 0 && <span class="warn">{plural(summary.errors, 'error')}</span>}
          {summary.networkFailures > 0 && <span class="warn">{plural(summary.networkFailures, 'failed request')}</span>}
        </p>
      )}
      <div class="layout">
        <div class="player">
          <iframe ref={frame} title="Recording player" src={`/recordings/${enc(id)}/player.html${rec?.live ? '?live=true' : ''}`} allow="clipboard-write" />
        </div>
        <aside>
          <Share id={id} />
          <h2>Metadata</h2>
          {!rec ? (
            <p class="muted">Loading…</p>
          ) : Object.keys(rec.metadata).length === 0 ? (
            <p class="muted">None.</p>
          ) : (
            <dl class="meta">
              {Object.entries(rec.metadata).map(([k, v]) => (
                <>
                  <dt>{k}</dt>
                  <dd>{v}</dd>
                </>
              ))}
            </dl>
          )}
          <h2>Timeline</h2>
          {items === null && <p class="muted">Loading…</p>}
          {items?.length === 0 && <p class="muted">No page views or activity recorded yet.</p>}
          {items && items.length > 0 && (
            <ol class="timeline">
              {items.slice(0, 500).map((it) => (
                <li class={`tl-${it.kind}`}>
                  <button class="tl" onClick={() => seek(it.offset)}>
                    <span class="at">{clock(it.offset)}</span>
                    <span class="kind">{kindName(it.kind)}</span>
                    <span class="what" title={label(it)}>
                      {label(it)}
                    </span>
                    <span class="sr-only">: play from here</span>
                  </button>
                </li>
              ))}
            </ol>
          )}
          <Delete id={id} />
        </aside>
      </div>
    </section>
  );
}

const kindName = (k: ActivityItem['kind']) =>
  ({ pageView: 'Page', click: 'Click', rageClick: 'Rage click', error: 'Error', networkFailure: 'Request failed' })[k];

function label(it: ActivityItem): string {
  switch (it.kind) {
    case 'pageView':
      return it.title ? `${it.title} — ${it.url}` : (it.url ?? '');
    case 'click':
      return `${target(it)}${it.dead ? ' (nothing happened)' : ''}`;
    case 'rageClick':
      return `${it.clicks ?? ''} clicks on ${target(it)}`.trim();
    case 'error':
      return it.message ?? '';
    case 'networkFailure':
      return `${it.method} ${it.url} (${it.status})`;
  }
}

/** What a click hit: the element's text, else its selector, else where it was (a target the recording never showed). */
const target = (it: ActivityItem) => it.text || it.selector || (it.x !== undefined && it.y !== undefined ? `at ${it.x}, ${it.y}` : 'the page');

function Share({ id }: { id: string }) {
  const [ttl, setTtl] = useState(86400);
  const [link, setLink] = useState<{ url: string; expiresAt: number } | null>(null);
  const [msg, setMsg] = useState('');
  const make = async () => {
    setMsg('');
    try {
      const l = await call<{ url: string; expiresAt: number }>(`/recordings/${enc(id)}/links`, {
        method: 'POST',
        body: { ttlSeconds: ttl, resource: 'player' },
      });
      setLink({ ...l, url: new URL(l.url, location.origin).href });
    } catch (e) {
      setMsg(explain(e));
    }
  };
  const copy = async () => {
    if (!link) return;
    try {
      await navigator.clipboard.writeText(link.url);
      setMsg('Link copied.');
    } catch {
      (document.getElementById('share-url') as HTMLInputElement | null)?.select();
      setMsg('Select the link and copy it (Ctrl+C).');
    }
  };
  return (
    <div class="share">
      <h2>Share</h2>
      <div class="row">
        <label>
          Link lifetime{' '}
          <select value={ttl} onChange={(e) => setTtl(Number((e.target as HTMLSelectElement).value))}>
            {LIFETIMES.map(([s, l]) => (
              <option value={s}>{l}</option>
            ))}
          </select>
        </label>
        <button onClick={() => void make()}>Create link</button>
      </div>
      {link && (
        <div class="row">
          <label class="grow">
            <span class="sr-only">Shareable link</span>
            <input id="share-url" readOnly value={link.url} onFocus={(e) => (e.target as HTMLInputElement).select()} />
          </label>
          <button onClick={() => void copy()}>Copy</button>
        </div>
      )}
      {link && <p class="muted small">Anyone with this link can watch this recording until {when(link.expiresAt)}.</p>}
      <p role="status" class="small">
        {msg}
      </p>
    </div>
  );
}

function Delete({ id }: { id: string }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const confirm = async () => {
    setBusy(true);
    try {
      await call(`/recordings/${enc(id)}`, { method: 'DELETE' });
      dialog.current?.close();
      navigate('/console/recordings', true);
    } catch (e) {
      setError(explain(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="danger">
      <h2>Delete</h2>
      <button class="destructive" onClick={() => dialog.current?.showModal()}>
        Delete recording…
      </button>
      <dialog ref={dialog} aria-labelledby="del-title">
        <h2 id="del-title">Delete this recording?</h2>
        <p>Its events, metadata and thumbnails are removed for good. Links already shared stop working.</p>
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        <div class="actions">
          <button class="destructive" disabled={busy} onClick={() => void confirm()}>
            Delete
          </button>
          <button class="quiet" onClick={() => dialog.current?.close()}>
            Cancel
          </button>
        </div>
      </dialog>
    </div>
  );
}
