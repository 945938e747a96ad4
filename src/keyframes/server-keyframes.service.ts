// Server-made keyframes (docs/keyframes.md), in the projector role: every KEYFRAME_SCAN_SECONDS,
// recordings whose last keyframe is KEYFRAME_EVERY_MINUTES or KEYFRAME_EVERY_BYTES behind their end
// (from the projections) are read whole, replayed in Chromium (KEYFRAME_CONCURRENCY at a time, a
// pool of their own) and get a keyframe at each moment keyframeMoments places, each stored as a `kf`
// message. A moment that could not be made is stored as a failed attempt: the recording renders
// from its other keyframes (or its start), is tried again only once it grew another interval, and
// not after MAX_FAILURES. Off the request path; several projector instances only repeat work (the
// same moment is a duplicate message within the stream's duplicate window).
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { gzipSync } from 'node:zlib';
import { AppError } from '../common/app-error';
import { PeriodicPass, runPool } from '../common/periodic-pass';
import { APP_CONFIG, AppConfig } from '../config/config';
import { EVENT_STORE, EventStore, RawEvent } from '../domain/event-store';
import { EventType } from '../domain/rrweb-event';
import { KeyframeHeader, keyframeMoments } from '../domain/server-keyframes';
import { KeyframeCandidate, KeyframeCandidatesRepository } from '../read-model/keyframe-candidates.repository';
import type { Viewport } from '../rendering/screenshot/screenshot-params';
import { KeyframeMaker } from './keyframe-maker';

/** Failed attempts after which a recording gets no more server-made keyframes. */
export const MAX_FAILURES = 3;
/** Keyframes made for one recording in one replay (a long recording catches up over several passes). */
export const MAX_PER_REPLAY = 50;
const DEFAULT_VIEWPORT: Viewport = { width: 1280, height: 800 };

@Injectable()
export class ServerKeyframesService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('keyframes');
  private readonly periodic = new PeriodicPass(() => this.pass(), this.logger, 'keyframe pass failed');
  /** By recording: the moment last tried here (the index may not show it yet). */
  private readonly tried = new LRUCache<string, number>({ max: 10_000 });
  /** By recording: failed attempts made here (the index may not count them yet). */
  private readonly failures = new LRUCache<string, number>({ max: 10_000 });
  /** By recording: the end at which it was found to need nothing (a coarse candidate). */
  private readonly settled = new LRUCache<string, number>({ max: 10_000 });
  made = 0;
  failed = 0;

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly candidates: KeyframeCandidatesRepository,
    private readonly maker: KeyframeMaker,
    @Inject(APP_CONFIG) private readonly cfg: AppConfig,
  ) {}

  private get enabled(): boolean {
    return this.cfg.KEYFRAME_CONCURRENCY > 0 && (this.cfg.KEYFRAME_EVERY_MINUTES > 0 || this.cfg.KEYFRAME_EVERY_BYTES > 0);
  }

  onApplicationBootstrap() {
    if (!this.enabled) return;
    this.periodic.start(this.cfg.KEYFRAME_SCAN_SECONDS * 1000);
  }

  /** No new pass, nor a failure recorded for a replay cut short from here on. */
  stop(): void {
    this.periodic.stop();
  }

  onApplicationShutdown(): Promise<void> {
    return this.periodic.shutdown();
  }

  /** Finds the recordings due and makes their keyframes, KEYFRAME_CONCURRENCY at a time. */
  async pass(): Promise<void> {
    const { KEYFRAME_CONCURRENCY: concurrency } = this.cfg;
    const due = await this.candidates.candidates({
      everyMs: this.cfg.KEYFRAME_EVERY_MINUTES * 60_000,
      everyBytes: this.cfg.KEYFRAME_EVERY_BYTES,
      maxFailures: MAX_FAILURES,
      nowMs: Date.now(),
      limit: concurrency * 8,
    });
    const makeEach = async (c: KeyframeCandidate) => {
      try {
        await this.makeFor(c);
      } catch (e) {
        // The store or the read failed (not the render): tried again next pass.
        this.logger.warn({ msg: 'no keyframes made', tenantId: c.tenantId, recordingId: c.recordingId, err: String((e as Error).message) });
      }
    };
    await runPool(due, concurrency, makeEach, () => this.periodic.stopping);
  }

  /** Makes the recording's due keyframes; answers how many were stored (failed attempts included). */
  async makeFor(c: KeyframeCandidate): Promise<number> {
    const key = `${c.tenantId}\u0000${c.recordingId}`;
    if (this.settled.get(key) === c.lastTs || (this.failures.get(key) ?? 0) >= MAX_FAILURES) return 0;
    const since = Math.max(c.triedTs ?? Number.NEGATIVE_INFINITY, this.tried.get(key) ?? Number.NEGATIVE_INFINITY);
    const events: RawEvent[] = [];
    try {
      for await (const run of this.store.readRaw(c.tenantId, c.recordingId, { mustExist: true })) events.push(...run);
    } catch (e) {
      if (e instanceof AppError && e.code === 'not_found') return 0;
      throw e;
    }
    const sized = events.map((e) => ({ type: e.type, timestamp: e.timestamp, bytes: e.json.length }));
    const moments = keyframeMoments(sized, Number.isFinite(since) ? since : undefined, {
      everyMs: this.cfg.KEYFRAME_EVERY_MINUTES * 60_000,
      everyBytes: this.cfg.KEYFRAME_EVERY_BYTES,
      max: MAX_PER_REPLAY,
    });
    if (moments.length === 0) {
      this.settled.set(key, c.lastTs);
      return 0;
    }
    const result = await this.maker.make(key, eventsJson(events), events[0].timestamp, viewportOf(events), moments);
    if (this.periodic.stopping && result.failed) delete result.failed; // cut short by shutdown, not a failure
    let stored = 0;
    for (const k of result.made) {
      try {
        await this.append(c, { v: 1, ts: k.ts, ok: true, enc: 'gzip' }, gzipSync(k.json));
        this.made++;
      } catch (e) {
        if (!(e instanceof AppError && e.code === 'payload_too_large')) throw e;
        result.failed = { ts: k.ts, reason: e.message };
        break;
      }
      stored++;
      this.tried.set(key, k.ts);
    }
    if (result.failed) {
      this.logger.warn({ msg: 'keyframe not made', tenantId: c.tenantId, recordingId: c.recordingId, ts: result.failed.ts, reason: result.failed.reason });
      await this.append(c, { v: 1, ts: result.failed.ts, ok: false, reason: result.failed.reason }, new Uint8Array(0));
      this.failed++;
      this.failures.set(key, (this.failures.get(key) ?? 0) + 1);
      stored++;
      this.tried.set(key, result.failed.ts);
    }
    return stored;
  }

  private append(c: KeyframeCandidate, header: KeyframeHeader, payload: Uint8Array) {
    return this.store.appendKeyframe(c.tenantId, c.recordingId, header, payload);
  }
}

/** The events as one JSON array, their stored bytes unchanged. */
export function eventsJson(events: readonly RawEvent[]): string {
  const parts: Buffer[] = [Buffer.from('[')];
  events.forEach((e, i) => {
    if (i > 0) parts.push(Buffer.from(','));
    parts.push(Buffer.from(e.json.buffer, e.json.byteOffset, e.json.byteLength));
  });
  parts.push(Buffer.from(']'));
  return Buffer.concat(parts).toString('utf8');
}

/** The window of the recording's first Meta (the replay page opens at that size). */
function viewportOf(events: readonly RawEvent[]): Viewport {
  const meta = events.find((e) => e.type === EventType.Meta);
  if (!meta) return DEFAULT_VIEWPORT;
  try {
    const d = (JSON.parse(Buffer.from(meta.json).toString('utf8')) as { data?: { width?: unknown; height?: unknown } }).data;
    return typeof d?.width === 'number' && typeof d.height === 'number' && d.width > 0 && d.height > 0
      ? { width: Math.round(d.width), height: Math.round(d.height) }
      : DEFAULT_VIEWPORT;
  } catch {
    return DEFAULT_VIEWPORT;
  }
}
