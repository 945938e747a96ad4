// Renders a recording at a moment to an image. Caches, in order of cost saved: encoded images by
// (tenant, contentKey, position, format, size, quality); recording summaries by tenant and
// contentKey; and a few warm replay pages by tenant and contentKey, so a repeat screenshot of a
// recording only seeks and shoots. contentKey must change whenever the recording's events change
// (e.g. id + last sequence). Every replay page has a browser context of its own (ReplayPage), used
// for one recording of one tenant only: renders of different tenants never share a context, a page
// or a cache entry, whatever their content keys.
import { LRUCache } from 'lru-cache';
import { AppError } from '../../common/app-error';
import { strongEtag } from '../../common/static-asset';
import type { RrwebEvent } from '../../domain/rrweb-event';
import type { BrowserLease, BrowserPool } from '../browser-pool/browser-pool';
import { untilAborted } from '../browser-pool/until-aborted';
import { resolvePosition } from '../shared/time-selector';
import { encodeImage } from './image-encoder';
import type { ImageFormat } from './image-format';
import { coversMoment, type Moment, momentIn, type PageEvents, type Span, WINDOW_AHEAD_MS, wholePage, windowPage } from './page-window';
import { RecordingSummary, summarizeRecording, viewportAt } from './recording-summary';
import { imageCache, warmPageCache } from './render-caches';
import { ReplayPage } from './replay-page';
import { resolveScreenshotSize, ScreenshotTime, Viewport } from './screenshot-params';

/**
 * Reads a window of the recording: `bounds` gets its first and last event times and answers the
 * window (epoch ms), which begins at the last keyframe at or before `from`. `span` is the recording's
 * first and last event as the read found them; without it the read could not window (batches without
 * summaries) and `events` are the whole recording.
 */

/** How far past a moment a seek goes so that the moment's own events show (see shoot()). */
export const SEEK_PAST_MS = 0.5;
export type WindowLoader = (bounds: (first: number, last: number) => { from: number; to: number }) => Promise<{ events: readonly RrwebEvent[]; span?: Span }>;

export interface ScreenshotRendererOptions {
  /** RENDER_TIMEOUT_MS, applied to every page operation. */
  timeoutMs: number;
  /** Warm replay pages kept open (0: a fresh context per render). Default 4. */
  warmPages?: number;
  /** Encoded-image cache bound. Default 64 MiB. */
  imageCacheBytes?: number;
  /** Told the seconds of each successful browser render, from asking for a slot to the encoded image. */
  onRendered?: (seconds: number) => void;
  /**
   * Admits a tenant's render before it loads events or waits for the browser (its `renders` limit,
   * and its render rate unless `background`); resolves the function that ends it, or throws the
   * refusal. Images from the cache skip it.
   */
  admit?: (tenantId: string, background: boolean) => Promise<() => void>;
}

export interface ScreenshotRequest {
  /** Whose recording: part of every cache key, so nothing rendered for one tenant serves another. */
  tenantId: string;
  contentKey: string;
  /** The events, or a loader called only when no cache can answer. */
  events: readonly RrwebEvent[] | (() => Promise<readonly RrwebEvent[]>);
  /** Windowed reads: cold pages then hold the events from the keyframe at or before the moment (page-window.ts). */
  around?: WindowLoader;
  time: ScreenshotTime;
  format: ImageFormat;
  /**
   * Rendered in the service's background queue (thumbnails: one at a time per process, for every
   * tenant), not in answer to a request: the tenant's render rate neither paces nor pays for it.
   */
  background?: boolean;
  width?: number;
  height?: number;
  quality?: number;
}

export interface RenderedImage {
  bytes: Buffer;
  contentType: string;
  /** Strong ETag: the quoted sha256 of the bytes. */
  etag: string;
  width: number;
  height: number;
}

const CONTENT_TYPES: Record<ImageFormat, string> = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp' };

/** What every cache key of a tenant's recording starts with: tenants never share an entry. */
const scopeOf = (tenantId: string, contentKey: string) => `${tenantId}\u0000${contentKey}`;

export class ScreenshotRenderer {
  private readonly images: LRUCache<string, RenderedImage>;
  private readonly summaries = new LRUCache<string, RecordingSummary>({ max: 1024 });
  /** Without a summary: the recording's span, and moments placed by windowed reads (by scope and position). */
  private readonly spans = new LRUCache<string, Span>({ max: 1024 });
  private readonly moments = new LRUCache<string, Moment>({ max: 4096 });
  private readonly warm: LRUCache<string, ReplayPage>;
  private readonly pending = new Map<string, Promise<RenderedImage>>();
  private readonly counts = { imageHits: 0, warmHits: 0, coldRenders: 0 };

  constructor(
    private readonly pool: BrowserPool,
    private readonly options: ScreenshotRendererOptions,
  ) {
    this.images = imageCache(4096, options.imageCacheBytes ?? 64 * 1024 * 1024);
    this.warm = warmPageCache(options.warmPages ?? 4);
  }

  get imageCacheHits(): number {
    return this.counts.imageHits;
  }
  get warmHits(): number {
    return this.counts.warmHits;
  }
  get coldRenders(): number {
    return this.counts.coldRenders;
  }

  async render(req: ScreenshotRequest): Promise<RenderedImage> {
    const scope = scopeOf(req.tenantId, req.contentKey);
    const { moment, page } = await this.plan(req, scope);
    // A side left out follows the ratio of the window at the moment shown (the recording may have resized it).
    const size = resolveScreenshotSize(req, moment.viewport);
    const quality = req.format === 'png' ? 0 : (req.quality ?? 80);
    const key = [scope, moment.at, req.format, size.width, size.height, quality].join('\u0000');

    const cached = this.images.get(key);
    if (cached) {
      this.counts.imageHits++;
      return cached;
    }
    let job = this.pending.get(key);
    if (!job) {
      job = this.produce(req.tenantId, scope, page, moment.shown, { format: req.format, ...size, quality }, req.background ?? false);
      this.pending.set(key, job);
      job
        .then(
          (img) => this.images.set(key, img),
          () => undefined,
        )
        .finally(() => this.pending.delete(key));
    }
    return job;
  }

  /**
   * The moment and the events of a page that can show it, reading as little as is known to be
   * enough: with the recording's summary or the moment cached, nothing before a page is needed; else
   * a windowed read places the moment and gives the page; else (a poster, a window that cannot say)
   * the whole recording, as before windows.
   */
  private async plan(req: ScreenshotRequest, scope: string): Promise<{ moment: Moment; page: () => Promise<PageEvents> }> {
    let whole: Promise<readonly RrwebEvent[]> | undefined;
    const events = () => (whole ??= typeof req.events === 'function' ? req.events() : Promise.resolve(req.events));
    const { time, around } = req;
    let summary = this.summaries.get(scope);
    // A poster is found from the first page view's changes: only the recording's summary places it.
    if (!summary && around && time.kind !== 'poster') {
      const span = this.spans.get(scope);
      const at = span && resolvePosition(time, span.first, span.last);
      const warm = at === undefined ? undefined : this.warm.peek(scope);
      const known = at === undefined ? undefined : (this.moments.get(momentKey(scope, at)) ?? (warm && momentIn(warm.range, at)));
      if (known) return { moment: known, page: once(() => this.pageAround(req, scope, known, events)) };
      const bounds = (first: number, last: number) => {
        const at = resolvePosition(time, first, last);
        return { from: at, to: at + WINDOW_AHEAD_MS };
      };
      const read = await around(bounds);
      if (!read.span)
        whole = Promise.resolve(read.events); // the read could not window: it is the whole recording
      else {
        const { from, to } = bounds(read.span.first, read.span.last);
        const found = windowPage(read.events, read.span, from, to);
        if (found) {
          this.spans.set(scope, read.span);
          this.moments.set(momentKey(scope, found.moment.at), found.moment);
          return { moment: found.moment, page: () => Promise.resolve(found.page) };
        }
      }
    }
    summary ??= summarizeRecording(await events());
    this.summaries.set(scope, summary);
    const moment = momentOf(summary, req.time);
    const known = summary;
    return { moment, page: once(async () => (req.around && !whole ? this.pageAround(req, scope, moment, events) : wholePage(await events(), known))) };
  }

  /** A page for a moment already placed: the window from its keyframe when that shows the same, else the whole recording. */
  private async pageAround(req: ScreenshotRequest, scope: string, moment: Moment, events: () => Promise<readonly RrwebEvent[]>): Promise<PageEvents> {
    const to = moment.shown + WINDOW_AHEAD_MS;
    const read = await req.around!(() => ({ from: moment.shown, to }));
    const found = read.span && windowPage(read.events, read.span, moment.shown, to);
    if (found && found.moment.shown === moment.shown) return found.page;
    const all = read.span ? await events() : read.events;
    return wholePage(all, this.summaries.get(scope) ?? summarizeRecording(all));
  }

  /** Drops every cached image, summary and warm page of a tenant (one being deleted). */
  forgetTenant(tenantId: string): void {
    const prefix = scopeOf(tenantId, '');
    for (const k of [...this.images.keys()]) if (k.startsWith(prefix)) this.images.delete(k);
    for (const cache of [this.summaries, this.spans, this.moments]) for (const k of [...cache.keys()]) if (k.startsWith(prefix)) cache.delete(k);
    for (const [k, page] of [...this.warm.entries()]) {
      if (!k.startsWith(prefix)) continue;
      this.warm.delete(k);
      if (!page.busy) void page.close(); // a busy one is closed by its render, now that it is not warm
    }
  }

  async close(): Promise<void> {
    const pages = [...this.warm.values()];
    this.warm.clear();
    await Promise.all(pages.map((p) => p.close()));
  }

  private async produce(
    tenantId: string,
    scope: string,
    page: () => Promise<PageEvents>,
    shown: number,
    out: { format: ImageFormat; width: number; height: number; quality: number },
    background: boolean,
  ): Promise<RenderedImage> {
    const done = await this.options.admit?.(tenantId, background);
    try {
      const warm = this.warm.peek(scope);
      if (!warm || !coversMoment(warm.range, shown)) await page(); // load before taking a browser slot
      const started = performance.now();
      const png = await this.pool.run((lease) => this.shoot(lease, scope, page, shown, out), { key: scope, owner: tenantId });
      const bytes = await encodeImage(png, out);
      this.options.onRendered?.((performance.now() - started) / 1000);
      return { bytes, contentType: CONTENT_TYPES[out.format], etag: strongEtag(bytes), width: out.width, height: out.height };
    } finally {
      done?.();
    }
  }

  private async shoot(lease: BrowserLease, scope: string, load: () => Promise<PageEvents>, shown: number, box: Viewport): Promise<Buffer> {
    // A retry after a crash runs alone in a browser of its own: it neither uses nor keeps warm pages.
    let page = lease.isolated ? undefined : this.warm.get(scope);
    // A warm page from a later keyframe, or loaded up to an earlier moment, cannot show this one: a
    // page from the keyframe before it replaces it.
    if (page && (page.generation !== lease.generation || page.closed || (!page.busy && !coversMoment(page.range, shown)))) {
      this.drop(scope, page);
      page = undefined;
    }
    let temporary = false;
    if (page && !page.busy) {
      this.counts.warmHits++;
    } else {
      this.counts.coldRenders++;
      const { events, range, viewport } = await load();
      const json = JSON.stringify(sortByTime(events));
      const opened = await ReplayPage.open(lease.browser, lease.generation, json, viewport ?? { width: box.width, height: box.height }, {
        timeoutMs: this.options.timeoutMs,
        signal: lease.signal,
      });
      opened.range = range;
      // A busy warm page, another request that warmed this key meanwhile, or warming disabled:
      // this page serves one render and is closed after it.
      temporary = lease.isolated || !!page || !!this.warm.peek(scope) || (this.options.warmPages ?? 4) <= 0 || lease.signal.aborted;
      if (!temporary) this.warm.set(scope, opened);
      page = opened;
    }
    const used = page;
    used.busy = true;
    const onAbort = () => this.drop(scope, used);
    lease.signal.addEventListener('abort', onAbort);
    try {
      // Offsets count from the page's first event. rrweb applies events strictly before its baseline,
      // so the moment's own millisecond needs a baseline past it, but not a whole millisecond past:
      // rrweb starts a seek at the last Meta at or before the baseline, and a keyframe's Meta exactly
      // there (the next millisecond) made it skip everything before and apply nothing (the page kept
      // its first snapshot). Timestamps are whole milliseconds, so +0.5 is exactly "up to and including".
      return await untilAborted(used.shoot(shown - used.range.firstTs + SEEK_PAST_MS, { width: box.width, height: box.height }), lease.signal);
    } catch (err) {
      this.drop(scope, used);
      throw err;
    } finally {
      lease.signal.removeEventListener('abort', onAbort);
      used.busy = false;
      if (temporary || this.warm.peek(scope) !== used) await used.close();
    }
  }

  private drop(scope: string, page: ReplayPage): void {
    if (this.warm.peek(scope) === page) this.warm.delete(scope);
    void page.close();
  }
}

/**
 * The moment of a screenshot of the whole recording: the page after every event at or before it;
 * before the first snapshot, the first snapshot.
 */
function momentOf(summary: RecordingSummary, time: ScreenshotTime): Moment {
  if (summary.firstSnapshotTs === undefined) throw new AppError('unprocessable', 'The recording has no full snapshot to render yet');
  // rrweb's Replayer refuses fewer than two events (a real recording starts with Meta and FullSnapshot).
  if (summary.eventCount < 2)
    throw new AppError('unprocessable', 'The recording has too few events to render yet: rrweb replays two or more (a full snapshot and at least one other)');
  const at = time.kind === 'poster' ? summary.posterTs! : resolvePosition(time, summary.firstTs, summary.lastTs);
  const shown = Math.max(at, summary.firstSnapshotTs);
  return { at, shown, viewport: viewportAt(summary, shown) };
}

const momentKey = (scope: string, at: number) => `${scope}\u0000${at}`;

function once<T>(f: () => Promise<T>): () => Promise<T> {
  let p: Promise<T> | undefined;
  return () => (p ??= f());
}

function sortByTime(events: readonly RrwebEvent[]): RrwebEvent[] {
  return [...events].sort((a, b) => a.timestamp - b.timestamp); // Array.prototype.sort is stable
}
