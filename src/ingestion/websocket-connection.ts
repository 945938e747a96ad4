// One ingesting WebSocket: frame parsing, buffering of compatible frames, batch acks, heartbeats and
// backpressure. See websocket-ingestion.ts for the contract.
import type { Logger } from '@nestjs/common';
import type { Duplex } from 'node:stream';
import { WebSocket } from 'ws';
import { AppError, statusOf } from '../common/app-error';
import { ContentCoding, decodeBounded } from '../common/content-coding';
import { parseJson, utf8 } from '../common/request-body';
import type { AppConfig } from '../config/config';
import type { ClientInfo } from '../domain/batch-summary';
import type { RrwebEvent } from '../domain/rrweb-event';
import { assertEventSizes, parseEventBatch, unpackEvents, validateEvents } from './event-batch.parser';
import { IDEMPOTENCY_KEY, IngestionService } from './ingestion.service';

export interface WsOptions {
  format: 'json' | 'ndjson';
  /** How binary frames are compressed; text frames are never decoded. */
  coding: ContentCoding;
  /** The upgrade request's client (metadata only where recording-meta sets includePii). */
  client: ClientInfo;
  /** rrweb Cloud's `debug=true`: each stored flush of compatible frames is echoed as NDJSON first. */
  debug: boolean;
  /** `watch=1`: the client takes `watch` frames (someone watches the recording live: send quickly). */
  watch: boolean;
  /** Told the status of every error frame sent (metrics). */
  onErrorFrame?: (status: number) => void;
}

const FLUSH_BYTES = 256 * 1024;
const FLUSH_MS = 250;
/** While the recording is watched live: compatible frames are stored this soon. */
const WATCHED_FLUSH_MS = 20;
/** `watch` frames at most this often (the signal is renewed every few seconds). */
const WATCH_FRAME_EVERY_MS = 4_000;
const INFLIGHT_BYTES = 8 * 1024 * 1024;
/**
 * Replies (acks, error frames, the debug echo) queued for a client that does not read them: above
 * this, reading from it pauses until its socket drains, so a client that never reads cannot make the
 * server buffer replies without bound (it then cannot send either: TCP pushes back). One that makes
 * no progress for two heartbeats while paused so is cut off.
 */
export const OUTBOUND_PAUSE_BYTES = 1024 * 1024;
/** A compatible flush is retried for this long before the client is told (its frames have no ids). */
const COMPAT_RETRY_MS = 10_000;

export class IngestConnection {
  private buffer: { events: RrwebEvent[]; raws: string[]; bytes: number } = { events: [], raws: [], bytes: 0 };
  private timer?: NodeJS.Timeout;
  private inflight = 0;
  /** Why reading from the client is paused: writes in flight above INFLIGHT_BYTES, replies it does not read. */
  private readonly pausedFor = new Set<'inflight' | 'outbound'>();
  /** Queued reply bytes at the last heartbeat while paused for them, and heartbeats without progress. */
  private outbound = { last: 0, stalled: 0 };
  private alive = true;
  private readonly heartbeat: NodeJS.Timeout;
  private pending = new Set<Promise<unknown>>();
  private revoked = false;
  /** Watched live until then (epoch ms), and when the client was last told. */
  private watched = { until: 0, told: 0 };

  constructor(
    private readonly ws: WebSocket,
    private readonly tenantId: string,
    private readonly recordingId: string,
    private readonly opts: WsOptions,
    private readonly ingestion: IngestionService,
    private readonly cfg: AppConfig,
    private readonly logger: Logger,
    /** The upgraded socket: any bytes arriving on it, a frame still in transit included, prove the
     * client alive. A pong alone queues behind a large frame on a slow link, so counting only pongs
     * closed slow uploads that were making progress. */
    socket?: Duplex,
  ) {
    ws.on('message', (data: Buffer, isBinary: boolean) => this.onMessage(data, isBinary));
    ws.on('pong', () => (this.alive = true));
    socket?.on('data', () => (this.alive = true));
    socket?.on('drain', () => this.resumeFor('outbound'));
    ws.on('close', () => {
      clearInterval(this.heartbeat);
      this.flush();
    });
    ws.on('error', () => undefined);
    this.heartbeat = setInterval(() => {
      // While reading is paused for backpressure the client's bytes (and pongs) wait unread in the
      // kernel: the silence is ours, not the client's.
      if (this.pausedFor.has('outbound')) return this.checkOutbound();
      if (this.pausedFor.size > 0) return;
      if (!this.alive) return this.ws.close(1001, 'heartbeat timeout');
      this.alive = false;
      this.ws.ping();
    }, cfg.WS_HEARTBEAT_MS);
  }

  /** Someone watches the recording live (watch-signals.ts) for the next `seconds`. */
  watchedFor(seconds: number) {
    const now = Date.now();
    this.watched.until = now + seconds * 1000;
    if (this.opts.watch && now - this.watched.told >= WATCH_FRAME_EVERY_MS) {
      this.watched.told = now;
      this.send({ type: 'watch', seconds });
    }
  }

  private send(frame: object) {
    this.sendText(JSON.stringify(frame));
  }

  private sendText(text: string) {
    if (this.ws.readyState !== WebSocket.OPEN) return;
    this.ws.send(text);
    if (this.ws.bufferedAmount > OUTBOUND_PAUSE_BYTES && !this.pausedFor.has('outbound')) {
      this.outbound = { last: this.ws.bufferedAmount, stalled: 0 };
      this.pauseFor('outbound');
    }
  }

  /** A heartbeat while paused for unread replies: a client that took none of them for two heartbeats is cut off. */
  private checkOutbound() {
    const queued = this.ws.bufferedAmount;
    if (queued <= OUTBOUND_PAUSE_BYTES / 2) return this.resumeFor('outbound'); // drained without a 'drain' (no socket given)
    this.outbound.stalled = queued < this.outbound.last ? 0 : this.outbound.stalled + 1;
    this.outbound.last = queued;
    if (this.outbound.stalled < 2) return;
    this.logger.warn({
      msg: 'ws client reads none of its replies; connection cut',
      tenantId: this.tenantId,
      recordingId: this.recordingId,
      queuedBytes: queued,
    });
    this.ws.terminate();
  }

  private pauseFor(reason: 'inflight' | 'outbound') {
    if (this.pausedFor.size === 0) this.ws.pause();
    this.pausedFor.add(reason);
  }

  private resumeFor(reason: 'inflight' | 'outbound') {
    if (!this.pausedFor.delete(reason) || this.pausedFor.size > 0) return;
    this.alive = true;
    this.ws.resume();
  }

  private onMessage(data: Buffer, isBinary: boolean) {
    if (this.revoked) return;
    this.alive = true;
    try {
      const raw = isBinary ? decodeBounded(data, this.opts.coding, this.cfg.WS_MAX_MESSAGE_BYTES) : data;
      const text = utf8(raw).trim();
      if (text === '') return;
      if (text.startsWith('{') && /^\{\s*"type"\s*:\s*"/.test(text)) {
        const early = BATCH_PREFIX.exec(text)?.[1];
        // A tenant already over a limit: refused before the frame is parsed (our recorder's frames).
        if (early !== undefined && !this.admits(early)) return;
        const canonical = canonicalBatch(text);
        if (canonical) return this.onControl(canonical.frame, text, canonical.payload);
        return this.onControl(parseJson(text, 'Frame') as Record<string, unknown>, text);
      }
      this.onEvents(text);
    } catch (e) {
      this.sendError(e);
    }
  }

  /** False (and the error frame sent) when the tenant is known to be over a limit. */
  private admits(batch: string): boolean {
    try {
      this.ingestion.precheck(this.tenantId);
      return true;
    } catch (e) {
      this.sendError(e, batch);
      return false;
    }
  }

  /** `payload`: the events array as the client wrote it, when canonicalBatch parsed exactly that. */
  private onControl(frame: Record<string, unknown>, text: string, payload?: string) {
    if (frame.type === 'ping') return this.send({ type: 'pong' });
    if (frame.type !== 'batch') throw new AppError('bad_request', `Unknown frame type ${JSON.stringify(String(frame.type).slice(0, 40))}`);
    const batch = frame.batch;
    if (typeof batch !== 'string' || !IDEMPOTENCY_KEY.test(batch)) throw new AppError('bad_request', 'batch must be 1-128 characters of A-Z a-z 0-9 _ . : -');
    let events: RrwebEvent[];
    let stored: string;
    try {
      if (!Array.isArray(frame.events) || frame.events.length === 0) throw new AppError('bad_request', 'events must be a non-empty array');
      const at = (i: number) => `index ${i}`;
      assertEventSizes(frame.events, text, this.cfg.INGEST_MAX_EVENT_BYTES, at);
      const unpacked = unpackEvents(frame.events, this.cfg.INGEST_MAX_EVENT_BYTES, at);
      events = validateEvents(unpacked ?? frame.events, at);
      stored = unpacked ? JSON.stringify(unpacked) : (payload ?? JSON.stringify(events));
    } catch (e) {
      return this.sendError(e, batch);
    }
    this.track(
      stored.length,
      async () => {
        const r = await this.ingestion.ingest({
          tenantId: this.tenantId,
          recordingId: this.recordingId,
          events,
          payload: stored,
          client: this.opts.client,
          idempotencyKey: batch,
        });
        this.send({ type: 'ack', batch, events: r.events, duplicate: r.duplicate });
      },
      (e) => this.sendError(e, batch),
    );
  }

  private onEvents(text: string) {
    const parsed =
      this.opts.format === 'json' && !text.startsWith('[')
        ? parseEventBatch(`[${text}]`, 'json', this.cfg.INGEST_MAX_EVENT_BYTES)
        : parseEventBatch(text, this.opts.format, this.cfg.INGEST_MAX_EVENT_BYTES);
    const raw = parsed.payload.slice(1, -1);
    this.buffer.events.push(...parsed.events);
    this.buffer.raws.push(raw);
    this.buffer.bytes += raw.length;
    if (this.buffer.bytes >= FLUSH_BYTES) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), this.watched.until > Date.now() ? WATCHED_FLUSH_MS : FLUSH_MS);
  }

  private flush() {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.buffer.events.length === 0) return;
    const { events, raws } = this.buffer;
    this.buffer = { events: [], raws: [], bytes: 0 };
    const payload = '[' + raws.join(',') + ']';
    this.track(
      payload.length,
      async () => {
        const deadline = Date.now() + COMPAT_RETRY_MS;
        for (let delay = 100; ; delay = Math.min(delay * 2, 2000)) {
          try {
            const r = await this.ingestion.ingest({ tenantId: this.tenantId, recordingId: this.recordingId, events, payload, client: this.opts.client });
            if (this.opts.debug) this.sendText(events.map((e) => JSON.stringify(e)).join('\n'));
            this.send({ type: 'upstream-result', ok: true, status: 204, statusText: 'No Content', headers: {}, final: false, events: r.events });
            return;
          } catch (e) {
            // Frames without ids cannot be resent by the client: wait out an outage or a rate limit
            // (reading pauses once too much waits), within the deadline.
            const wait = e instanceof AppError && e.code === 'rate_limited' ? Math.max(delay, (e.retryAfterSeconds ?? 1) * 1000) : delay;
            if (!(e instanceof AppError && (e.code === 'unavailable' || e.code === 'rate_limited')) || Date.now() + wait > deadline) throw e;
            await new Promise((r) => setTimeout(r, wait));
          }
        }
      },
      (e) => this.sendError(e),
    );
  }

  /** Runs a write while accounting its bytes; pauses reading above the in-flight bound. */
  private track(bytes: number, work: () => Promise<void>, onError: (e: unknown) => void) {
    this.inflight += bytes;
    if (this.inflight > INFLIGHT_BYTES) this.pauseFor('inflight');
    const p = work()
      .catch(onError)
      .finally(() => {
        this.inflight -= bytes;
        this.pending.delete(p);
        if (this.inflight <= INFLIGHT_BYTES / 2) this.resumeFor('inflight');
      });
    this.pending.add(p);
  }

  private sendError(e: unknown, batch?: string) {
    const status = e instanceof AppError ? statusOf(e.code) : 503;
    const message = e instanceof AppError ? e.message : 'Could not store the data; retry';
    if (!(e instanceof AppError)) this.logger.error({ msg: 'ws ingest failed', err: String(e) });
    this.opts.onErrorFrame?.(status);
    const retryAfter = e instanceof AppError ? e.retryAfterSeconds : undefined;
    this.send({ type: 'error', status, message, ...(batch ? { batch } : {}), ...(retryAfter !== undefined ? { retryAfter } : {}) });
  }

  /**
   * The key of this connection was revoked, or (with `refusal`, sent first as an error frame of
   * status 403) its tenant suspended or set for deletion: frames from now on are dropped, and the
   * socket closes with 1008.
   */
  revoke(refusal?: AppError) {
    if (this.revoked) return;
    this.revoked = true;
    if (refusal) this.sendError(refusal);
    this.ws.close(1008, refusal ? 'tenant refused' : 'API key revoked');
  }

  /**
   * Stores what is buffered, waits for every write, and closes with 1001. Frames that arrive before the
   * client answers the close are flushed by the close handler and waited for too. A client that does
   * not answer within `closeWaitMs` is cut off.
   */
  async shutdown(closeWaitMs = 5_000) {
    this.flush();
    await Promise.allSettled([...this.pending]);
    if (this.ws.readyState !== WebSocket.CLOSED) {
      const closed = new Promise((r) => this.ws.once('close', r));
      this.ws.close(1001, 'server shutting down');
      const cut = setTimeout(() => this.ws.terminate(), closeWaitMs);
      await closed;
      clearTimeout(cut);
    }
    await Promise.allSettled([...this.pending]);
  }
}

const BATCH_PREFIX = /^\{"type":"batch","batch":"([A-Za-z0-9_.:-]{1,128})","events":/;

/**
 * A batch frame in the canonical key order {"type","batch","events"} (what our recorder sends), read
 * by parsing only its events array, which is then stored exactly as the client wrote it: one parse,
 * no re-serialising. The stored text is the very text that was parsed and validated; a frame that
 * repeats a key (`…"events":[…],"events":[…]}`) or has another one is not a single array there and
 * takes the general path (parse the whole frame, store the re-serialised array that was validated).
 */
export function canonicalBatch(text: string): { frame: Record<string, unknown>; payload: string } | null {
  const m = BATCH_PREFIX.exec(text);
  if (!m || !text.endsWith('}')) return null;
  const payload = text.slice(m[0].length, -1).trim();
  try {
    return { frame: { type: 'batch', batch: m[1], events: JSON.parse(payload) as unknown }, payload };
  } catch {
    return null;
  }
}
