// Run in the viewer's browser by the hosted player in live mode: the live event feed
// (GET …/events?live=true, Server-Sent Events, docs/live.md) through the browser's EventSource, which
// reconnects by itself and sends Last-Event-ID. `end` closes it for good, except `shutdown` (that
// instance is stopping): then it is opened again after a pause, from the last id received. When the
// browser gives up (a refused reconnect: EventSource never says the status), one fetch of the same
// URL learns why: 429 is retried after its Retry-After, anything else is reported.

export interface FeedStatus {
  live: boolean;
  lastEventAt?: number;
  serverTime?: number;
}

export interface FeedHandlers {
  status(s: FeedStatus, receivedAt: number): void;
  /** One `events` message: the backfill first, then each stored batch; `id` its stream sequence. */
  events(events: unknown[], id: string): void;
  /** True once the stream is open, false while the browser reconnects. */
  connection(open: boolean): void;
  /** The feed is over: an `end` reason, or `refused:<HTTP status>` when it could not be opened again. */
  end(reason: string): void;
  /** The feed was refused with this status (429: too many live viewers, 5xx) and is tried again in `ms`. */
  retrying(status: number, ms: number): void;
}

export interface Feed {
  close(): void;
  /** Times the feed was opened again by this code (after `shutdown`, a 429 or a failed reconnect). */
  readonly reconnects: number;
}

const SHUTDOWN_RETRY_MS = 1000;
const MAX_RETRY_MS = 60_000;

/** The URL with `lastEventId` set (the feed's query equivalent of Last-Event-ID), for a reopen of our own. */
export function resumeUrl(url: string, lastEventId: string | undefined): string {
  const [path, query = ''] = url.split('?', 2);
  const params = query.split('&').filter((p) => p !== '' && !/^lastEventId(?:=|$)/.test(p));
  if (lastEventId) params.push('lastEventId=' + encodeURIComponent(lastEventId));
  return params.length ? path + '?' + params.join('&') : path;
}

/** Seconds of a Retry-After header (delta form), as ms within 1 s .. 60 s; 5 s when absent or a date. */
export function retryAfterMs(header: string | null): number {
  const s = header !== null && /^\s*\d+\s*$/.test(header) ? Number(header) * 1000 : 5000;
  return Math.min(MAX_RETRY_MS, Math.max(1000, s));
}

export function openFeed(url: string, h: FeedHandlers): Feed {
  let source: EventSource | null = null;
  let lastId: string | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let over = false;
  const feed = { reconnects: 0, close };

  function parse(e: Event): unknown {
    try {
      return JSON.parse((e as MessageEvent<string>).data);
    } catch {
      return undefined;
    }
  }
  function open(): void {
    const es = new EventSource(resumeUrl(url, lastId));
    source = es;
    es.onopen = () => h.connection(true);
    es.addEventListener('status', (e) => {
      const s = parse(e) as FeedStatus | undefined;
      if (s && typeof s.live === 'boolean') h.status(s, Date.now());
    });
    es.addEventListener('events', (e) => {
      const list = parse(e);
      const id = (e as MessageEvent).lastEventId;
      if (id) lastId = id;
      if (Array.isArray(list)) h.events(list, id);
    });
    es.addEventListener('end', (e) => {
      const body = parse(e) as { reason?: unknown } | undefined;
      const reason = body && typeof body.reason === 'string' ? body.reason : 'ended';
      es.close();
      if (reason === 'shutdown') {
        h.connection(false);
        reopen(SHUTDOWN_RETRY_MS + Math.random() * 1000);
      } else finish(reason);
    });
    es.onerror = () => {
      if (over || source !== es) return;
      if (es.readyState === EventSource.CLOSED) probe();
      else h.connection(false);
    };
  }
  function reopen(ms: number): void {
    if (over) return;
    source = null;
    timer = setTimeout(() => {
      feed.reconnects++;
      open();
    }, ms);
  }
  function probe(): void {
    h.connection(false);
    const ctl = typeof AbortController === 'function' ? new AbortController() : undefined;
    fetch(resumeUrl(url, lastId), { headers: { accept: 'text/event-stream' }, cache: 'no-store', signal: ctl && ctl.signal }).then(
      (res) => {
        if (ctl) ctl.abort();
        if (res.ok) reopen(0);
        else if (res.status === 429 || res.status >= 500) {
          const ms = retryAfterMs(res.headers.get('retry-after'));
          h.retrying(res.status, ms);
          reopen(ms);
        } else finish('refused:' + res.status);
      },
      () => reopen(5000),
    );
  }
  function finish(reason: string): void {
    if (over) return;
    over = true;
    h.end(reason);
  }
  function close(): void {
    over = true;
    if (timer !== undefined) clearTimeout(timer);
    if (source) source.close();
    source = null;
  }
  open();
  return feed;
}
