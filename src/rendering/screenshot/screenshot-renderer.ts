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
import { RecordingSummary, summarizeRecording, viewportAt } from './recording-summary';
import { imageCache, warmPageCache } from './render-caches';
import { ReplayPage } from './replay-page';
import { resolveScreenshotSize, ScreenshotTime, Viewport } from './screenshot-params';

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
   * Admits a tenant's render before it loads events or waits for the browser (its `renders` limit);
   * resolves the function that ends it, or throws the refusal. Images from the cache skip it.
   */
  admit?: (tenantId: string) => Promise<() => void>;
}

export interface ScreenshotRequest {
  /** Whose recording: part of every cache key, so nothing rendered for one tenant serves another. */
  tenantId: string;
  contentKey: string;
  /** The events, or a loader called only when no cache can answer. */
  events: readonly RrwebEvent[] | (() => Promise<readonly RrwebEvent[]>);
  time: ScreenshotTime;
  format: ImageFormat;
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
    let loaded: Promise<readonly RrwebEvent[]> | undefined;
    const events = () => (loaded ??= typeof req.events === 'function' ? req.events() : Promise.resolve(req.events));
    const scope = scopeOf(req.tenantId, req.contentKey);
    let summary = this.summaries.get(scope);
    if (!summary) {
      summary = summarizeRecording(await events());
      this.summaries.set(scope, summary);
    }
    if (summary.firstSnapshotTs === undefined) throw new AppError('unprocessable', 'The recording has no full snapshot to render yet');
    // rrweb's Replayer refuses fewer than two events (a real recording starts with Meta and FullSnapshot).
    if (summary.eventCount < 2)
      throw new AppError('unprocessable', 'The recording has too few events to render yet: rrweb replays two or more (a full snapshot and at least one other)');
    const at = req.time.kind === 'poster' ? summary.posterTs! : resolvePosition(req.time, summary.firstTs, summary.lastTs);
    // The page as it stands after every event at or before `at` (rrweb applies those strictly
    // before its baseline, hence +1); before the first snapshot, the first snapshot. A side left
    // out follows the ratio of the window at that moment (the recording may have resized it).
    const shown = Math.max(at, summary.firstSnapshotTs);
    const seekMs = shown - summary.firstTs + 1;
    const size = resolveScreenshotSize(req, viewportAt(summary, shown));
    const quality = req.format === 'png' ? 0 : (req.quality ?? 80);
    const key = [scope, at, req.format, size.width, size.height, quality].join('\u0000');

    const cached = this.images.get(key);
    if (cached) {
      this.counts.imageHits++;
      return cached;
    }
    let job = this.pending.get(key);
    if (!job) {
      job = this.produce(req.tenantId, scope, events, summary, seekMs, { format: req.format, ...size, quality });
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

  /** Drops every cached image, summary and warm page of a tenant (one being deleted). */
  forgetTenant(tenantId: string): void {
    const prefix = scopeOf(tenantId, '');
    for (const k of [...this.images.keys()]) if (k.startsWith(prefix)) this.images.delete(k);
    for (const k of [...this.summaries.keys()]) if (k.startsWith(prefix)) this.summaries.delete(k);
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
    events: () => Promise<readonly RrwebEvent[]>,
    summary: RecordingSummary,
    offsetMs: number,
    out: { format: ImageFormat; width: number; height: number; quality: number },
  ): Promise<RenderedImage> {
    const done = await this.options.admit?.(tenantId);
    try {
      if (!this.warm.peek(scope)) await events(); // load before taking a browser slot
      const viewport = summary.viewport ?? { width: out.width, height: out.height };
      const started = performance.now();
      const png = await this.pool.run((lease) => this.shoot(lease, scope, events, viewport, offsetMs, out), { key: scope, owner: tenantId });
      const bytes = await encodeImage(png, out);
      this.options.onRendered?.((performance.now() - started) / 1000);
      return { bytes, contentType: CONTENT_TYPES[out.format], etag: strongEtag(bytes), width: out.width, height: out.height };
    } finally {
      done?.();
    }
  }

  private async shoot(
    lease: BrowserLease,
    scope: string,
    events: () => Promise<readonly RrwebEvent[]>,
    viewport: Viewport,
    offsetMs: number,
    box: Viewport,
  ): Promise<Buffer> {
    // A retry after a crash runs alone in a browser of its own: it neither uses nor keeps warm pages.
    let page = lease.isolated ? undefined : this.warm.get(scope);
    if (page && (page.generation !== lease.generation || page.closed)) {
      this.drop(scope, page);
      page = undefined;
    }
    let temporary = false;
    if (page && !page.busy) {
      this.counts.warmHits++;
    } else {
      this.counts.coldRenders++;
      const json = JSON.stringify(sortByTime(await events()));
      const opened = await ReplayPage.open(lease.browser, lease.generation, json, viewport, {
        timeoutMs: this.options.timeoutMs,
        signal: lease.signal,
      });
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
      return await untilAborted(used.shoot(offsetMs, { width: box.width, height: box.height }), lease.signal);
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

function sortByTime(events: readonly RrwebEvent[]): RrwebEvent[] {
  return [...events].sort((a, b) => a.timestamp - b.timestamp); // Array.prototype.sort is stable
}
