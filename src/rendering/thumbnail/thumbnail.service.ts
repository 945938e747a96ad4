// Poster thumbnails (GET /recordings/{id}/thumbnail, links.thumbnail of listings): a 320 px WebP of
// the poster moment, rendered in the background one at a time and kept in memory per recording.
// A request never waits for Chromium: it answers the thumbnail this instance holds, or 404 with
// Retry-After while one is queued. A recording that changed is rendered again once it has been quiet
// for IDLE_MS since the last render (the old image is served meanwhile); a deleted one is 404 at once
// (its events are looked up first, as a screenshot's are). The idle sweep (thumbnail-sweep.ts) queues
// recordings on a second queue, taken only when no request waits and the browser pool is idle.
import { Injectable, Logger, Optional } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { AppError } from '../../common/app-error';
import { type ConditionalAnswer, conditionalGet } from '../../common/static-asset';
import { BrowserPool } from '../browser-pool/browser-pool';
import { RenderSource, RecordingRenderSource } from '../shared/recording-render-source';
import { POSTER } from '../screenshot/screenshot-params';
import { ScreenshotRenderer } from '../screenshot/screenshot-renderer';

export const THUMBNAIL_WIDTH = 320;
const IDLE_MS = 60_000;
const MAX_QUEUED = 512;
const CACHE_BYTES = 32 * 1024 * 1024;

interface Held {
  contentKey: string;
  renderedAt: number;
  bytes: Buffer;
  etag: string;
  /** Set when the render failed for good (422): nothing to show until the recording changes. */
  failed?: string;
}

interface Job {
  key: string;
  tenantId: string;
  source: RenderSource;
}

@Injectable()
export class ThumbnailService {
  private readonly logger = new Logger('thumbnails');
  private readonly held = new LRUCache<string, Held>({ max: 20_000, maxSize: CACHE_BYTES, sizeCalculation: (h) => Math.max(1, h.bytes.length) });
  private readonly queue: Job[] = [];
  /** Jobs of the idle sweep: after every request, one at a time, while nothing else renders. */
  private readonly idleQueue: Job[] = [];
  private readonly queued = new Set<string>();
  private running = false;
  /** Wakes the loop waiting for an idle pool when a request's job arrives (next). */
  private wake?: () => void;
  /** Renders finished and their total seconds (bench, metrics). */
  readonly stats = { rendered: 0, failed: 0, seconds: 0 };

  constructor(
    private readonly source: RecordingRenderSource,
    private readonly renderer: ScreenshotRenderer,
    @Optional() private readonly pool?: BrowserPool,
  ) {}

  async respond(tenantId: string, recordingId: string, ifNoneMatch: string | undefined, maxAge: number, nowMs = Date.now()): Promise<ConditionalAnswer> {
    const source = await this.source.resolve(tenantId, recordingId);
    const key = `${tenantId}/${recordingId}`;
    const held = this.held.get(key);
    const stale = held && held.contentKey !== source.contentKey && nowMs - held.renderedAt >= IDLE_MS;
    if (!held || stale) this.enqueue({ key, tenantId, source });
    if (held?.failed !== undefined && held.contentKey === source.contentKey) {
      throw new AppError('unprocessable', `The recording cannot be shown as a thumbnail: ${held.failed}`);
    }
    if (!held || held.failed !== undefined) {
      throw new AppError('not_found', 'The thumbnail is not rendered yet; it is being rendered in the background', { retryAfterSeconds: 5 });
    }
    return conditionalGet(ifNoneMatch, held.etag, held.bytes, { 'Cache-Control': `private, max-age=${maxAge}` }, { 'Content-Type': 'image/webp' });
  }

  /** When this instance last rendered (or failed for good on) the recording's thumbnail, epoch ms. */
  renderedAt(tenantId: string, recordingId: string): number | undefined {
    return this.held.peek(`${tenantId}/${recordingId}`)?.renderedAt;
  }

  /** Queues the recording on the idle queue (the sweep); a recording gone or unreadable is skipped. */
  async renderWhenIdle(tenantId: string, recordingId: string): Promise<void> {
    const key = `${tenantId}/${recordingId}`;
    if (this.queued.has(key) || this.idleQueue.length >= MAX_QUEUED) return;
    let source: RenderSource;
    try {
      source = await this.source.resolve(tenantId, recordingId);
    } catch {
      return;
    }
    if (this.held.peek(key)?.contentKey === source.contentKey || this.queued.has(key)) return;
    this.queued.add(key);
    this.idleQueue.push({ key, tenantId, source });
    if (!this.running) void this.run();
  }

  /** Waits until the queues are empty (tests, bench). */
  async drained(timeoutMs = 60_000): Promise<void> {
    const until = Date.now() + timeoutMs;
    while ((this.running || this.queue.length > 0 || this.idleQueue.length > 0) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
  }

  forgetTenant(tenantId: string): void {
    for (const key of [...this.held.keys()]) if (key.startsWith(`${tenantId}/`)) this.held.delete(key);
  }

  private enqueue(job: Job): void {
    // Asked for while waiting on the idle queue: it moves to the requests' queue.
    const idle = this.idleQueue.findIndex((j) => j.key === job.key);
    if (idle >= 0) {
      this.idleQueue.splice(idle, 1);
      this.queued.delete(job.key);
    }
    if (this.queued.has(job.key) || this.queue.length >= MAX_QUEUED) return;
    this.queued.add(job.key);
    this.queue.push(job);
    this.wake?.();
    if (!this.running) void this.run();
  }

  private async run(): Promise<void> {
    this.running = true;
    try {
      for (let job = await this.next(); job; job = await this.next()) {
        await this.renderOne(job);
        this.queued.delete(job.key);
      }
    } finally {
      this.running = false;
    }
  }

  /** The next job: a request's, else (once no screenshot or player render runs or waits) an idle one. */
  private async next(): Promise<Job | undefined> {
    for (;;) {
      const job = this.queue.shift();
      if (job) return job;
      if (this.idleQueue.length === 0) return undefined;
      if (!this.pool || (this.pool.inFlight === 0 && this.pool.queueLength === 0)) return this.idleQueue.shift();
      // Woken when the last screenshot or player render lets go, or when a request's job arrives (it goes first).
      const pool = this.pool;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        void pool.whenIdle().then(resolve);
      });
      this.wake = undefined;
    }
  }

  private async renderOne({ key, tenantId, source }: Job): Promise<void> {
    const started = performance.now();
    try {
      const image = await this.renderer.render({
        tenantId,
        contentKey: source.contentKey,
        events: source.events,
        around: source.around,
        time: POSTER,
        format: 'webp',
        width: THUMBNAIL_WIDTH,
        quality: 60,
        // One at a time for every tenant: pacing one tenant's would hold everyone's.
        background: true,
      });
      this.held.set(key, { contentKey: source.contentKey, renderedAt: Date.now(), bytes: image.bytes, etag: image.etag });
      this.stats.rendered++;
      this.stats.seconds += (performance.now() - started) / 1000;
    } catch (e) {
      this.stats.failed++;
      // Unrenderable (422) is remembered for this content; anything else (busy, timeout) is tried on a later request.
      if (e instanceof AppError && e.code === 'unprocessable') {
        this.held.set(key, { contentKey: source.contentKey, renderedAt: Date.now(), bytes: Buffer.alloc(0), etag: '""', failed: e.message });
      } else {
        this.logger.warn(`thumbnail of ${key} not rendered: ${(e as Error).message}`);
      }
    }
  }
}
