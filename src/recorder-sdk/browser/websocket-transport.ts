// The WebSocket path of the recorder (docs/websocket.md). Contract: a batch sent here stays in the
// queue, in flight on 'ws', until its ack frame; when the socket closes, goes silent or stops acking
// it is given up, everything in flight on it is queued again (same ids) and a new socket is opened
// after a backoff. An error frame drops the batch (4xx), queues it again for later (retry: nothing is
// sent on either transport for the frame's retryAfter or the backoff, the longer), or, for 502/503,
// pauses the socket (as long) so that batches go over HTTP for a while. While the socket is down for
// WS_FALLBACK_AFTER_MS (or paused, or blocked by the page's CSP) HTTP carries the batches.
import { Backoff } from './backoff';
import type { Batch, BatchQueue } from './batch-queue';
import { PING_FRAME, batchFrame, classifyStatus, parseServerFrame, retryDelay, slowLinkMs } from './protocol';

type Timer = ReturnType<typeof setTimeout>;

/** How much may be in flight on the socket at once. */
const WS_WINDOW_BYTES = 8 * 1024 * 1024;
/** How long the socket may be down before HTTP takes the batches over. */
const WS_FALLBACK_AFTER_MS = 3000;
const WS_CONNECT_TIMEOUT_MS = 10_000;
const PING_EVERY_MS = 15_000;
const HEARTBEAT_TICK_MS = 5000;
const SILENCE_LIMIT_MS = 45_000;
/** Batches in flight on a live socket with no ack for this long: reconnect and resend them. */
const ACK_LIMIT_MS = 60_000;

/** What the socket needs from the session that owns it. */
export interface SocketHost {
  /** The session has stopped: no reconnecting, no sending. */
  isStopped(): boolean;
  /** Nothing can be delivered any more (the key was refused, or the CSP blocks the server). */
  isRefused(): boolean;
  /** The recording id is not settled yet (the tab check runs): no connection before it is. */
  isWaiting(): boolean;
  /** Something changed (a batch settled, the socket opened or went away): send what can be sent. */
  pump(): void;
  /** The server asked to retry later: nothing is sent, on either transport, until `until`. */
  pauseSending(until: number): void;
  /** Someone watches the recording live: send each batch quickly until `until`. */
  watchedUntil(until: number): void;
}

export class WebSocketTransport {
  /** Where to connect (token included); null when the recorder sends over HTTP only. */
  url: string | null = null;
  /** The page's Content-Security-Policy blocks WebSockets to the server: HTTP only, for good. */
  blocked = false;
  private ws: WebSocket | null = null;
  private open = false;
  private downSince = Date.now();
  private readonly backoff = new Backoff(250, 10_000);
  private reconnectTimer: Timer | null = null;
  private connectTimer: Timer | null = null;
  private heartbeat: ReturnType<typeof setInterval> | null = null;
  private lastFrameAt = 0;
  private lastPingAt = 0;
  /** Last ack, or the moment the socket went from nothing in flight to something in flight. */
  private lastAckProgress = 0;
  /** After a 502/503 error frame: batches go over HTTP until then. */
  private pausedUntil = 0;
  private readonly pauseBackoff = new Backoff(1000, 30_000);
  /** Spaces the retries the server asks for in error frames (429, 408, 5xx other than 502/503). */
  private readonly retryBackoff = new Backoff(250, 10_000);

  constructor(
    private readonly queue: BatchQueue,
    private readonly host: SocketHost,
  ) {}

  get isOpen(): boolean {
    return this.open;
  }

  /** Whether the socket carries batches now (open, and not paused by a 502/503). */
  carrying(now: number): boolean {
    return this.open && now >= this.pausedUntil;
  }

  /** Whether batches go over HTTP now: no socket to use, one down for a while, or one paused. */
  fallsBack(now: number): boolean {
    if (this.url === null || this.blocked) return true;
    if (this.open) return now < this.pausedUntil;
    return now - this.downSince >= WS_FALLBACK_AFTER_MS;
  }

  /** While the socket is down and HTTP has not taken over yet: how long until it does. */
  fallbackIn(now: number): number {
    return this.downSince + WS_FALLBACK_AFTER_MS - now;
  }

  /**
   * Sends queued batches over the open socket, up to the in-flight window. Returns how long until
   * the socket may carry batches again when a 502/503 paused it, else null.
   */
  fill(now: number): number | null {
    if (!this.open || !this.ws) return null;
    if (now < this.pausedUntil) return this.pausedUntil - now;
    let inFlight = this.queue.inFlightOn('ws');
    while (this.open) {
      if (inFlight.count > 0 && inFlight.bytes >= WS_WINDOW_BYTES) break;
      const batch = this.queue.nextToSend((b) => !b.httpOnly);
      if (!batch) break;
      this.send(batch);
      inFlight = { count: inFlight.count + 1, bytes: inFlight.bytes + batch.bytes };
    }
    return null;
  }

  connect(): void {
    const host = this.host;
    if (host.isStopped() || host.isRefused() || this.blocked || host.isWaiting() || this.url === null || this.ws) return;
    let ws: WebSocket;
    try {
      ws = new WebSocket(this.url);
    } catch {
      return this.scheduleReconnect();
    }
    this.ws = ws;
    this.connectTimer = setTimeout(() => this.abandon(ws, 0), WS_CONNECT_TIMEOUT_MS);
    ws.onopen = () => {
      if (this.ws !== ws) return;
      this.clearConnectTimer();
      this.open = true;
      this.lastFrameAt = this.lastPingAt = Date.now();
      this.heartbeat = setInterval(() => this.beat(ws), HEARTBEAT_TICK_MS);
      this.host.pump();
    };
    ws.onmessage = (ev: MessageEvent) => {
      if (this.ws !== ws) return;
      this.lastFrameAt = Date.now();
      this.onFrame(ev.data);
    };
    ws.onclose = (ev: CloseEvent) => this.abandon(ws, ev.code);
    ws.onerror = () => {
      // a close event follows
    };
  }

  /** The network is back, or the page is shown again: try at once rather than after the backoff. */
  reconnectNow(): void {
    if (this.ws || this.host.isStopped()) return;
    this.clearReconnectTimer();
    this.backoff.reset();
    this.connect();
  }

  /** The page's CSP blocks WebSockets to the server: drop the socket and never open one again. */
  block(): void {
    this.blocked = true;
    if (this.ws) this.abandon(this.ws, 0);
    this.clearReconnectTimer();
  }

  /** The session stopped: close the socket for good (what was in flight on it is the caller's). */
  close(): void {
    this.clearReconnectTimer();
    this.clearConnectTimer();
    this.stopHeartbeat();
    const ws = this.ws;
    this.ws = null;
    this.open = false;
    if (ws) {
      ws.onopen = ws.onmessage = ws.onclose = ws.onerror = null;
      try {
        ws.close(1000, 'recording stopped');
      } catch {
        // ignore
      }
    }
  }

  private beat(ws: WebSocket): void {
    const now = Date.now();
    const inFlight = this.queue.inFlightOn('ws');
    // On a slow uplink our ping (and the server's answers) queue behind megabytes still going up:
    // that silence is not a dead socket, so wait as long as those bytes take at 64 KiB/s.
    const slack = slowLinkMs(inFlight.bytes + ws.bufferedAmount);
    if (now - this.lastFrameAt > SILENCE_LIMIT_MS + slack) return this.abandon(ws, 0);
    if (inFlight.count > 0 && now - this.lastAckProgress > ACK_LIMIT_MS + slack) {
      return this.abandon(ws, 0);
    }
    if (now - this.lastPingAt < PING_EVERY_MS - HEARTBEAT_TICK_MS / 2) return;
    this.lastPingAt = now;
    try {
      ws.send(PING_FRAME);
    } catch {
      this.abandon(ws, 0);
    }
  }

  /** The socket is gone (closed, dead, or timed out): requeue its batches and reconnect. */
  private abandon(ws: WebSocket, code: number): void {
    if (this.ws !== ws) return;
    // The 3 s fallback clock starts when an open socket is lost, not at each failed attempt.
    if (this.open) this.downSince = Date.now();
    this.ws = null;
    this.open = false;
    this.clearConnectTimer();
    this.stopHeartbeat();
    ws.onopen = ws.onmessage = ws.onclose = ws.onerror = null;
    if (ws.readyState === WebSocket.CONNECTING || ws.readyState === WebSocket.OPEN) {
      try {
        ws.close(4000, 'client gave up');
      } catch {
        // ignore
      }
    }
    const released = this.queue.releaseAll('ws');
    if (code === 1009 && released.length > 0) {
      // Too big for the server's WebSocket frame limit: send the largest over HTTP from now on.
      released.reduce((a, b) => (b.bytes > a.bytes ? b : a)).httpOnly = true;
    }
    if (this.host.isStopped()) return;
    this.scheduleReconnect();
    this.host.pump();
  }

  private scheduleReconnect(): void {
    if (this.reconnectTimer !== null || this.host.isStopped() || this.host.isRefused()) return;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      this.connect();
    }, this.backoff.next());
  }

  private send(batch: Batch): void {
    const ws = this.ws;
    if (!ws) return;
    if (this.queue.inFlightOn('ws').count === 0) this.lastAckProgress = Date.now();
    this.queue.markInFlight(batch, 'ws');
    try {
      ws.send(batchFrame(batch.id, batch.body));
    } catch {
      this.abandon(ws, 0);
    }
  }

  private onFrame(data: unknown): void {
    const frame = parseServerFrame(data);
    const now = Date.now();
    switch (frame.type) {
      case 'ack':
        this.lastAckProgress = now;
        this.backoff.reset();
        this.pauseBackoff.reset();
        this.retryBackoff.reset();
        if (this.queue.ack(frame.batch)) this.host.pump();
        return;
      case 'pong':
        this.backoff.reset();
        return;
      case 'watch':
        this.host.watchedUntil(now + frame.seconds * 1000);
        return;
      case 'error': {
        const outcome = classifyStatus(frame.status);
        const batch = frame.batch !== undefined ? this.queue.get(frame.batch) : undefined;
        if (batch && batch.inFlight === 'ws') {
          if (outcome === 'drop') this.queue.drop(batch.id);
          else this.queue.release(batch.id);
        }
        // The server's retryAfter (seconds) is a floor: a 429 or 507 resent sooner is refused again.
        const asked = (frame.retryAfter ?? 0) * 1000;
        if (outcome === 'fallback') {
          this.pausedUntil = now + retryDelay(asked, this.pauseBackoff.next());
        } else if (outcome === 'retry' && (batch || asked > 0)) {
          this.host.pauseSending(now + retryDelay(asked, this.retryBackoff.next()));
        }
        this.host.pump();
        return;
      }
      default:
        return;
    }
  }

  private clearReconnectTimer(): void {
    if (this.reconnectTimer !== null) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
  }

  private clearConnectTimer(): void {
    if (this.connectTimer !== null) clearTimeout(this.connectTimer);
    this.connectTimer = null;
  }

  private stopHeartbeat(): void {
    if (this.heartbeat !== null) clearInterval(this.heartbeat);
    this.heartbeat = null;
  }
}
