// One viewer's live feed (GET /recordings/{id}/events?live=true, docs/live.md). The seam between what
// is already stored and what is still to come is a stream position P, taken after the viewer joined
// its recording's channel: the backfill reads the recording's batches up to P (from its latest
// keyframe, or only those after the viewer's Last-Event-ID), and the channel, following from P + 1 at
// the latest, delivers everything after; frames at or below the seam are dropped. So nothing is
// missed and nothing repeated, however the two race. Channel frames that arrive during the backfill
// wait (bounded); a viewer that cannot keep up is dropped with a reason instead of growing memory.
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { once } from 'node:events';
import { PassThrough, Readable } from 'node:stream';
import { StoreUnavailable } from '../common/app-error';
import { setReplyHeaders } from '../common/reply-headers';
import { APP_CONFIG, AppConfig } from '../config/config';
import { RecordingTails } from '../infrastructure/nats/recording-tail';
import { TenantLimiter } from '../limits/tenant-limiter.service';
import type { LiveChannel } from './live-channel';
import { KeptAlive, LiveHub } from './live-hub';
import { DATA_END, EndReason, endFrame, eventsHead, retryFrame, singleLine, statusFrame } from './sse';

/** EventSource waits this long before reconnecting. */
const RETRY_MS = 2000;

export interface LiveRequest {
  tenantId: string;
  recordingId: string;
  /** A presigned link's expiry (UNIX seconds): the feed ends then. */
  expires?: number;
  /** The stream position the viewer already has (Last-Event-ID). */
  after?: number;
}

/**
 * The stored events the viewer lacks, up to stream position `upTo`, as a JSON array: after `after`
 * when resuming, else from the recording's latest keyframe. Rejects (404, 503, 429) before its first
 * chunk when it cannot be read.
 */
export type Backfill = (upTo: number, after: number | undefined, signal: AbortSignal) => Promise<Readable>;

class Viewer implements KeptAlive {
  /** Frames from the channel while the backfill is written; undefined once live. */
  private waiting: { seq: number; frame: Buffer }[] | undefined = [];
  private waitingBytes = 0;
  private seam = 0;
  private endLater?: EndReason;
  closed = false;

  constructor(
    private readonly out: PassThrough,
    private readonly maxBuffered: number,
    private readonly socketBuffered: () => number,
  ) {}

  get backfilling(): boolean {
    return this.waiting !== undefined;
  }

  get buffered(): number {
    return this.out.writableLength + this.out.readableLength + this.socketBuffered();
  }

  events(seq: number, frame: Buffer): void {
    if (this.closed) return;
    if (this.waiting) {
      this.waiting.push({ seq, frame });
      this.waitingBytes += frame.length;
      // Mid-backfill no end frame can be written (the backfill message is open): the connection is cut.
      if (this.waitingBytes > this.maxBuffered) this.cut();
      return;
    }
    if (seq > this.seam) this.write(frame);
  }

  status(frame: Buffer): void {
    if (this.closed) return;
    if (this.waiting) this.waiting.push({ seq: Number.MAX_SAFE_INTEGER, frame });
    else this.write(frame);
  }

  keepalive(frame: Buffer): void {
    if (!this.closed && !this.waiting) this.write(frame);
  }

  end(reason: EndReason): void {
    if (this.closed) return;
    if (this.waiting) {
      this.endLater ??= reason;
      return;
    }
    this.closed = true;
    this.out.end(endFrame(reason));
  }

  /** The backfill is written (up to stream position `seam`): frames that waited follow, then live. */
  goLive(seam: number): void {
    const waiting = this.waiting ?? [];
    this.waiting = undefined;
    this.waitingBytes = 0;
    this.seam = seam;
    for (const w of waiting) if (w.seq > seam) this.write(w.frame);
    if (this.endLater) this.end(this.endLater);
  }

  /** Writes what the backfill produced, waiting while the client is behind. */
  async writeBackfill(chunk: Buffer): Promise<void> {
    if (this.closed) return;
    if (!this.out.write(chunk)) await once(this.out, 'drain');
  }

  /** Writes `frame` unless more than the allowance still waits for the client (one frame always fits). */
  write(frame: Buffer): void {
    if (this.closed) return;
    if (this.buffered > this.maxBuffered) return this.end('slow_viewer');
    this.out.write(frame);
  }

  cut(): void {
    if (this.closed) return;
    this.closed = true;
    this.out.destroy();
  }
}

@Injectable()
export class LiveFeed {
  private readonly logger = new Logger('live');
  private readonly maxBuffered: number;

  constructor(
    private readonly hub: LiveHub,
    private readonly tails: RecordingTails,
    private readonly limits: TenantLimiter,
    @Inject(APP_CONFIG) cfg: Pick<AppConfig, 'LIVE_VIEWER_BUFFER_BYTES'>,
  ) {
    this.maxBuffered = cfg.LIVE_VIEWER_BUFFER_BYTES;
  }

  /** Answers the request with the feed (or an error status when it cannot start). */
  async open(req: LiveRequest, reply: FastifyReply, backfill: Backfill): Promise<FastifyReply> {
    const { tenantId, recordingId } = req;
    const release = await this.limits.openLiveViewer(tenantId);
    const out = new PassThrough({ highWaterMark: 64 * 1024 });
    const viewer = new Viewer(out, this.maxBuffered, () => reply.raw.writableLength);
    const channel = this.hub.join(tenantId, recordingId, viewer);
    const abort = new AbortController();
    let expiry: NodeJS.Timeout | undefined;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      abort.abort();
      if (expiry) clearTimeout(expiry);
      viewer.closed = true;
      this.hub.leave(channel, viewer);
      release();
    };
    let body: Readable;
    let first: IteratorResult<Buffer>;
    let seam: number;
    let it: AsyncIterator<Buffer>;
    try {
      const [position, lastEventAt] = await Promise.all([this.position(), this.tails.lastEventAt(tenantId, recordingId)]);
      channel.start(position + 1);
      channel.noteEventAt(lastEventAt, true);
      seam = Math.max(position, req.after ?? 0);
      body = await backfill(position, req.after, abort.signal);
      it = body[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
      first = await it.next();
    } catch (e) {
      finish();
      throw e;
    }
    reply.raw.once('close', finish);
    out.once('close', finish);
    if (req.expires !== undefined) {
      const left = req.expires * 1000 - Date.now();
      expiry = setTimeout(() => viewer.end('link_expired'), Math.max(0, left));
      expiry.unref();
    }
    setReplyHeaders(reply, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'private, no-store', 'x-accel-buffering': 'no' });
    void this.writeBackfill(viewer, channel, seam, first, it, req).catch((e: unknown) => {
      // After the first byte a failed read can only cut the feed: EventSource reconnects and resumes.
      this.logger.warn({ msg: 'live backfill failed; feed cut', tenantId, recordingId, err: String((e as Error).message) });
      viewer.cut();
    });
    return reply.send(out);
  }

  private async writeBackfill(viewer: Viewer, channel: LiveChannel, seam: number, first: IteratorResult<Buffer>, it: AsyncIterator<Buffer>, req: LiveRequest) {
    await viewer.writeBackfill(Buffer.concat([retryFrame(RETRY_MS), statusFrame(channel.status()), eventsHead(seam)]));
    try {
      for (let r = first; !r.done; r = await it.next()) {
        if (viewer.closed) return;
        await viewer.writeBackfill(singleLine(r.value));
      }
    } finally {
      await it.return?.();
    }
    await viewer.writeBackfill(DATA_END);
    viewer.goLive(seam);
    this.logger.debug({ msg: 'live viewer joined', tenantId: req.tenantId, recordingId: req.recordingId, seam, resumed: req.after !== undefined });
  }

  private async position(): Promise<number> {
    try {
      return await this.tails.position();
    } catch {
      throw new StoreUnavailable('Event store (NATS JetStream) is unreachable; retry later');
    }
  }
}
