// One recording in progress: records with rrweb, cuts batches, and delivers them until acked.
// Contract: a batch is kept (same id) until the server acks it over WebSocket or answers 2xx over
// HTTP; it is dropped only on a 4xx other than 408/429 (counted as dropped) or by the 50 MB memory
// bound (counted as lost). Transport: WebSocket, falling back to HTTP POST while the socket is down
// for 3 s or the server reports 502/503; a batch is in flight on one transport at a time.
import { record } from '@rrweb/record';
import type { eventWithTime, recordOptions } from 'rrweb';
import { Backoff } from './backoff';
import { BatchQueue, type Batch, type QueueStats } from './batch-queue';
import { EventBuffer } from './event-buffer';
import { uuid } from './ids';
import { decodePending, encodePending } from './persist';
import { PING_FRAME, batchFrame, classifyStatus, isServerUrl, parseServerFrame, slowLinkMs, utf8Length } from './protocol';
import { SequenceCounter } from './sequence';
import { SafeStore, pendingKey, sequenceKey } from './storage';

declare const __TAPEDECK_VERSION__: string;
declare const __RRWEB_VERSION__: string;

export type RecordOptions = Omit<recordOptions<eventWithTime>, 'emit' | 'packFn'> & {
  emit?: (event: eventWithTime, isCheckout?: boolean) => void;
};

export interface SessionConfig {
  recordingId: string;
  publicKey: string;
  /** Base URL of the Tapedeck server, e.g. https://tapedeck.example.com (no trailing slash). */
  serverUrl: string;
  meta: Record<string, unknown>;
  recordOptions: RecordOptions;
  /** 'websocket' (default): WebSocket with HTTP fallback; 'http': HTTP POST only. */
  transport: 'websocket' | 'http';
  store: SafeStore;
  /** Called when the session stops itself (the server refused the key). */
  onSelfStop?: () => void;
}

export interface RecorderStats extends QueueStats {
  recordingId: string;
  /** The transport currently carrying batches. */
  transport: 'websocket' | 'http' | 'none';
  recording: boolean;
  /** Events recorded and not yet cut into a batch. */
  bufferedEvents: number;
  eventsRecorded: number;
}

type Timer = ReturnType<typeof setTimeout>;

export const RECORDER_VERSION = typeof __TAPEDECK_VERSION__ === 'string' ? __TAPEDECK_VERSION__ : 'dev';
const RRWEB_VERSION = typeof __RRWEB_VERSION__ === 'string' ? __RRWEB_VERSION__ : 'unknown';

const BATCH_INTERVAL_MS = 1000;
const BATCH_MAX_EVENTS = 200;
const BATCH_MAX_BYTES = 512 * 1024;
const MAX_UNACKED_BYTES = 50 * 1024 * 1024;
const PERSIST_MAX_CHARS = 2 * 1024 * 1024;
const WS_WINDOW_BYTES = 8 * 1024 * 1024;
const WS_FALLBACK_AFTER_MS = 3000;
const WS_CONNECT_TIMEOUT_MS = 10_000;
const PING_EVERY_MS = 15_000;
const HEARTBEAT_TICK_MS = 5000;
const SILENCE_LIMIT_MS = 45_000;
/** Batches in flight on a live socket with no ack for this long: reconnect and resend them. */
const ACK_LIMIT_MS = 60_000;
const KEEPALIVE_LIMIT = 60_000;
const STOP_DRAIN_MS = 5000;
/** After a back/forward-cache restore, when to look again for what the page left behind saved. */
const ADOPT_AGAIN_MS = 1000;

export class RecorderSession {
  private id: string;
  private readonly queue = new BatchQueue(MAX_UNACKED_BYTES);
  private readonly buffer = new EventBuffer(BATCH_MAX_EVENTS, BATCH_MAX_BYTES);
  private seq: SequenceCounter;
  private httpUrl = '';
  private wsUrl: string | null = null;
  /** Events recorded before begin() fixed the recording id; null from then on. */
  private held: Array<Record<string, unknown>> | null = [];
  private decideNow: (() => void) | null = null;
  private markBegun: () => void = () => undefined;
  private readonly begun = new Promise<void>((resolve) => (this.markBegun = resolve));
  private state: 'running' | 'stopping' | 'stopped' = 'running';
  private stopRecording: (() => void) | undefined;
  private eventsRecorded = 0;
  private cutTimer: Timer | null = null;
  private pumpTimer: Timer | null = null;
  private pumpAt = 0;

  private ws: WebSocket | null = null;
  private wsOpen = false;
  private wsDownSince = Date.now();
  private wsBackoff = new Backoff(250, 10_000);
  private reconnectTimer: Timer | null = null;
  private connectTimer: Timer | null = null;
  private adoptTimer: Timer | null = null;
  /** Batch ids this page saved to sessionStorage itself (the rest there are other pages'). */
  private readonly savedIds = new Set<string>();
  private heartbeat: ReturnType<typeof setInterval> | null = null;
  private lastFrameAt = 0;
  private lastPingAt = 0;
  /** Last ack, or the moment the socket went from nothing in flight to something in flight. */
  private lastAckProgress = 0;
  /** After a 502/503 error frame: batches go over HTTP until then. */
  private wsPausedUntil = 0;
  private wsPauseBackoff = new Backoff(1000, 30_000);

  /** After a 429/5xx: nothing is sent until then. */
  private sendPausedUntil = 0;
  private retryBackoff = new Backoff(250, 10_000);
  private httpBusy = false;
  private httpNotBefore = 0;
  private httpBackoff = new Backoff(250, 10_000);
  private keepaliveBytes = 0;
  /** Nothing can be delivered (the key was refused, or the page's CSP blocks the server). */
  private authFailed = false;
  /** The page's Content-Security-Policy blocks WebSockets to the server: HTTP only. */
  private wsBlocked = false;
  /** Between pagehide and a pageshow: the page is going away and no timer may fire again. */
  private leaving = false;
  private rehideQueued = false;

  private readonly listeners: Array<[EventTarget, string, EventListener]> = [];

  constructor(private readonly config: SessionConfig) {
    this.id = config.recordingId;
    this.seq = this.useId(config.recordingId);
  }

  /** The recording id; it may change once, in begin(), while the tab check runs. */
  get recordingId(): string {
    return this.id;
  }

  private useId(recordingId: string): SequenceCounter {
    this.id = recordingId;
    const base = `${this.config.serverUrl}/recordings/${encodeURIComponent(recordingId)}/events`;
    this.httpUrl = base;
    this.wsUrl =
      this.config.transport === 'websocket' && typeof WebSocket !== 'undefined'
        ? `${base.replace(/^http/, 'ws')}/ws?token=${encodeURIComponent(this.config.publicKey)}`
        : null;
    return new SequenceCounter(this.config.store, sequenceKey(recordingId));
  }

  /**
   * Starts recording. Events are held (no sequenceId, nothing sent) until begin() fixes the recording
   * id; `decideNow`, when given, makes that happen at once (the page is going away or stopping).
   */
  start(decideNow: (() => void) | null = null): void {
    this.decideNow = decideNow;
    this.push({
      type: 5,
      timestamp: Date.now(),
      data: {
        tag: 'recording-meta',
        payload: {
          ...this.config.meta,
          domain: location.hostname,
          recorder: 'tapedeck',
          recorderVersion: RECORDER_VERSION,
          recordVersion: RRWEB_VERSION,
        },
      },
    });
    this.listen(document, 'visibilitychange', () =>
      document.visibilityState === 'hidden' ? this.onHide() : this.onShow(),
    );
    this.listen(window, 'pagehide', () => {
      this.leaving = true;
      this.onHide();
    });
    this.listen(window, 'pageshow', (ev) => this.onShow((ev as PageTransitionEvent).persisted));
    this.listen(window, 'online', () => this.reconnectNow());
    this.listen(document, 'securitypolicyviolation', (ev) => this.onBlocked(ev as SecurityPolicyViolationEvent));

    // packFn would turn events into strings the server cannot read; emit is ours.
    const { emit: userEmit, packFn: _packFn, ...options } = this.config.recordOptions as RecordOptions & {
      packFn?: unknown;
    };
    try {
      this.stopRecording = record({
        maskAllInputs: true,
        slimDOMOptions: 'all',
        inlineStylesheet: true,
        ...options,
        emit: (event: eventWithTime, isCheckout?: boolean) => {
          this.push(event as unknown as Record<string, unknown>);
          if (userEmit) {
            try {
              userEmit(event, isCheckout);
            } catch {
              // the page's callback must not break recording
            }
          }
        },
      });
    } catch (err) {
      console.error('[tapedeck] could not start rrweb recording', err);
    }
  }

  /** Fixes the recording id: re-queues what earlier pages of the tab left, then sends held events. */
  begin(recordingId: string): void {
    const held = this.held;
    if (!held) return;
    this.held = null;
    this.decideNow = null;
    if (recordingId !== this.id) this.seq = this.useId(recordingId);
    const key = pendingKey(recordingId);
    const restored = this.queue.restore(decodePending(this.config.store.getItem(key)));
    this.config.store.removeItem(key);
    for (const event of held) this.push(event);
    this.connect();
    if (restored > 0) this.pump();
    this.markBegun();
  }

  /** Before anything that needs the recording id settled (leaving the page, stopping). */
  private decide(): void {
    if (!this.held) return;
    this.decideNow?.();
    this.begin(this.id); // no decision came: keep the id we have
  }

  private takeFullSnapshot(): void {
    if (this.state !== 'running' || !this.stopRecording) return;
    try {
      record.takeFullSnapshot(true);
    } catch (err) {
      console.error('[tapedeck] could not take a full snapshot', err);
    }
  }

  addMeta(meta: Record<string, unknown>): void {
    this.push({ type: 5, timestamp: Date.now(), data: { tag: 'recording-meta', payload: { ...meta } } });
  }

  /** Resolves when everything recorded so far is acknowledged (or dropped/lost, see stats()). */
  flush(): Promise<void> {
    return this.begun.then(() => {
      this.cut();
      this.pump();
      return this.queue.whenSettled();
    });
  }

  /** Stops recording, tries for a few seconds to deliver what is left, then closes the socket. */
  async stop(): Promise<void> {
    if (this.state !== 'running') return;
    this.decide();
    this.state = 'stopping';
    try {
      this.stopRecording?.();
    } catch {
      // ignore
    }
    // No id is handed out after this: a start() in this page continues from the exact next id.
    this.seq.commit();
    this.cut();
    this.pump();
    let timer: Timer | undefined;
    await Promise.race([
      this.queue.whenSettled(),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, STOP_DRAIN_MS))),
    ]);
    clearTimeout(timer);
    this.teardown();
  }

  /** Forgets everything stored for this recording (stop(true)). */
  forget(): void {
    this.config.store.removeItem(sequenceKey(this.recordingId));
    this.config.store.removeItem(pendingKey(this.recordingId));
  }

  stats(): RecorderStats {
    const now = Date.now();
    return {
      recordingId: this.recordingId,
      transport: this.wsOpen && now >= this.wsPausedUntil ? 'websocket' : this.httpActive(now) ? 'http' : 'none',
      recording: this.state === 'running',
      bufferedEvents: this.buffer.size + (this.held?.length ?? 0),
      eventsRecorded: this.eventsRecorded,
      ...this.queue.stats(),
    };
  }

  // ---- events and batches ----

  private push(event: Record<string, unknown>): void {
    if (this.state !== 'running') return;
    if (this.held) {
      this.held.push(event);
      return;
    }
    let json: string;
    try {
      json = JSON.stringify({ ...event, sequenceId: this.seq.next() });
    } catch {
      return;
    }
    this.eventsRecorded++;
    const full = this.buffer.add(json);
    if (this.leaving) {
      // Recorded after pagehide (the page's own pagehide, visibilitychange or unload handlers): no
      // timer fires again, so hand it over the way onHide did, once per burst of events.
      if (!this.rehideQueued) {
        this.rehideQueued = true;
        queueMicrotask(() => {
          this.rehideQueued = false;
          if (this.leaving) this.onHide();
        });
      }
    } else if (full) {
      this.cut();
      this.pump();
    } else if (this.cutTimer === null) {
      this.cutTimer = setTimeout(() => {
        this.cutTimer = null;
        this.cut();
        this.pump();
      }, BATCH_INTERVAL_MS);
    }
  }

  private cut(): void {
    if (this.cutTimer !== null) {
      clearTimeout(this.cutTimer);
      this.cutTimer = null;
    }
    const batch = this.buffer.take();
    if (batch) this.queue.add(uuid(), batch.body, batch.events);
  }

  // ---- scheduling ----

  /** Sends what can be sent now, on the transport that is usable now. */
  private pump(): void {
    if (this.state === 'stopped' || this.authFailed) return;
    const now = Date.now();
    if (now < this.sendPausedUntil) return this.schedulePump(this.sendPausedUntil - now);

    if (this.wsOpen && this.ws && now >= this.wsPausedUntil) {
      let inFlight = this.queue.inFlightOn('ws');
      while (this.wsOpen) {
        if (inFlight.count > 0 && inFlight.bytes >= WS_WINDOW_BYTES) break;
        const batch = this.queue.nextToSend((b) => !b.httpOnly);
        if (!batch) break;
        this.sendOverSocket(batch);
        inFlight = { count: inFlight.count + 1, bytes: inFlight.bytes + batch.bytes };
      }
    } else if (this.wsOpen && now < this.wsPausedUntil) {
      this.schedulePump(this.wsPausedUntil - now);
    }

    if (this.queue.size === 0 || this.httpBusy) return;
    const fallback = this.httpActive(now);
    const batch = this.queue.nextToSend((b) => fallback || b.httpOnly);
    if (!batch) {
      if (!fallback && !this.wsOpen) this.schedulePump(this.wsDownSince + WS_FALLBACK_AFTER_MS - now);
      return;
    }
    if (now < this.httpNotBefore) return this.schedulePump(this.httpNotBefore - now);
    this.httpBusy = true;
    void this.post(batch, false).finally(() => {
      this.httpBusy = false;
      this.pump();
    });
  }

  private httpActive(now: number): boolean {
    if (this.wsUrl === null || this.wsBlocked) return true;
    if (this.wsOpen) return now < this.wsPausedUntil;
    return now - this.wsDownSince >= WS_FALLBACK_AFTER_MS;
  }

  private schedulePump(delay: number): void {
    const at = Date.now() + Math.max(0, delay);
    if (this.pumpTimer !== null && this.pumpAt <= at) return;
    if (this.pumpTimer !== null) clearTimeout(this.pumpTimer);
    this.pumpAt = at;
    this.pumpTimer = setTimeout(() => {
      this.pumpTimer = null;
      this.pump();
    }, Math.max(0, delay) + 5);
  }

  // ---- WebSocket ----

  private connect(): void {
    if (this.state === 'stopped' || this.authFailed || this.wsBlocked || this.held || this.wsUrl === null || this.ws) return;
    let ws: WebSocket;
    try {
      ws = new WebSocket(this.wsUrl);
    } catch {
      return this.scheduleReconnect();
    }
    this.ws = ws;
    this.connectTimer = setTimeout(() => this.abandonSocket(ws, 0), WS_CONNECT_TIMEOUT_MS);
    ws.onopen = () => {
      if (this.ws !== ws) return;
      this.clearTimer('connectTimer');
      this.wsOpen = true;
      this.lastFrameAt = this.lastPingAt = Date.now();
      this.heartbeat = setInterval(() => this.beat(ws), HEARTBEAT_TICK_MS);
      this.pump();
    };
    ws.onmessage = (ev: MessageEvent) => {
      if (this.ws !== ws) return;
      this.lastFrameAt = Date.now();
      this.onFrame(ev.data);
    };
    ws.onclose = (ev: CloseEvent) => this.abandonSocket(ws, ev.code);
    ws.onerror = () => {
      // a close event follows
    };
  }

  private beat(ws: WebSocket): void {
    const now = Date.now();
    const inFlight = this.queue.inFlightOn('ws');
    // On a slow uplink our ping (and the server's answers) queue behind megabytes still going up:
    // that silence is not a dead socket, so wait as long as those bytes take at 64 KiB/s.
    const slack = slowLinkMs(inFlight.bytes + ws.bufferedAmount);
    if (now - this.lastFrameAt > SILENCE_LIMIT_MS + slack) return this.abandonSocket(ws, 0);
    if (inFlight.count > 0 && now - this.lastAckProgress > ACK_LIMIT_MS + slack) {
      return this.abandonSocket(ws, 0);
    }
    if (now - this.lastPingAt < PING_EVERY_MS - HEARTBEAT_TICK_MS / 2) return;
    this.lastPingAt = now;
    try {
      ws.send(PING_FRAME);
    } catch {
      this.abandonSocket(ws, 0);
    }
  }

  /** The socket is gone (closed, dead, or timed out): requeue its batches and reconnect. */
  private abandonSocket(ws: WebSocket, code: number): void {
    if (this.ws !== ws) return;
    // The 3 s fallback clock starts when an open socket is lost, not at each failed attempt.
    if (this.wsOpen) this.wsDownSince = Date.now();
    this.ws = null;
    this.wsOpen = false;
    this.clearTimer('connectTimer');
    if (this.heartbeat !== null) clearInterval(this.heartbeat);
    this.heartbeat = null;
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
    if (this.state === 'stopped') return;
    this.scheduleReconnect();
    this.pump();
  }

  private scheduleReconnect(): void {
    if (this.reconnectTimer !== null || this.state === 'stopped' || this.authFailed) return;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      this.connect();
    }, this.wsBackoff.next());
  }

  private reconnectNow(): void {
    if (this.ws || this.state === 'stopped') return;
    this.clearTimer('reconnectTimer');
    this.wsBackoff.reset();
    this.connect();
  }

  private sendOverSocket(batch: Batch): void {
    const ws = this.ws;
    if (!ws) return;
    if (this.queue.inFlightOn('ws').count === 0) this.lastAckProgress = Date.now();
    this.queue.markInFlight(batch, 'ws');
    try {
      ws.send(batchFrame(batch.id, batch.body));
    } catch {
      this.abandonSocket(ws, 0);
    }
  }

  private onFrame(data: unknown): void {
    const frame = parseServerFrame(data);
    const now = Date.now();
    switch (frame.type) {
      case 'ack':
        this.lastAckProgress = now;
        this.wsBackoff.reset();
        this.wsPauseBackoff.reset();
        this.retryBackoff.reset();
        if (this.queue.ack(frame.batch)) this.pump();
        return;
      case 'pong':
        this.wsBackoff.reset();
        return;
      case 'error': {
        const outcome = classifyStatus(frame.status);
        const batch = frame.batch !== undefined ? this.queue.get(frame.batch) : undefined;
        if (batch && batch.inFlight === 'ws') {
          if (outcome === 'drop') this.queue.drop(batch.id);
          else this.queue.release(batch.id);
        }
        if (outcome === 'fallback') {
          this.wsPausedUntil = now + this.wsPauseBackoff.next();
        } else if (outcome === 'retry' && batch) {
          this.sendPausedUntil = now + this.retryBackoff.next();
        }
        this.pump();
        return;
      }
      default:
        return;
    }
  }

  // ---- HTTP ----

  /** POSTs one batch. Settles the batch (ack, drop, or release for a retry); never rejects. */
  private async post(batch: Batch, unloading: boolean): Promise<void> {
    this.queue.markInFlight(batch, 'http');
    const size = utf8Length(batch.body);
    const keepalive = this.keepaliveBytes + size <= KEEPALIVE_LIMIT;
    if (keepalive) this.keepaliveBytes += size;
    let status = 0;
    let retryAfter = 0;
    try {
      const res = await fetch(this.httpUrl, {
        method: 'POST',
        keepalive,
        credentials: 'omit',
        headers: {
          Authorization: `Bearer ${this.config.publicKey}`,
          'Content-Type': 'application/json',
          'Idempotency-Key': batch.id,
        },
        body: batch.body,
      });
      status = res.status;
      retryAfter = Number(res.headers.get('Retry-After')) * 1000 || 0;
    } catch {
      status = 0;
    } finally {
      if (keepalive) this.keepaliveBytes -= size;
    }
    if (this.queue.get(batch.id) !== batch) return; // acked over the socket, or lost meanwhile
    const outcome = classifyStatus(status);
    if (outcome === 'ack') {
      this.queue.ack(batch.id);
      this.httpBackoff.reset();
      return;
    }
    if (outcome === 'drop') {
      this.queue.drop(batch.id);
      if (status === 401 || status === 403) this.onAuthRefused(status);
      return;
    }
    this.queue.release(batch.id);
    if (!unloading) {
      const delay = Math.min(60_000, Math.max(retryAfter, this.httpBackoff.next()));
      this.httpNotBefore = Date.now() + delay;
      if (status === 429) this.sendPausedUntil = this.httpNotBefore;
    }
  }

  private onAuthRefused(status: number): void {
    this.selfStop(`the server refused the public key (HTTP ${status})`);
  }

  /** Nothing recorded here can ever be delivered: say why once, and stop. */
  private selfStop(reason: string): void {
    if (this.authFailed) return;
    this.authFailed = true;
    console.warn(`[tapedeck] ${reason}; recording stopped`);
    this.config.onSelfStop?.();
    void this.stop();
  }

  /**
   * The page's Content-Security-Policy blocked a connection. A blocked WebSocket leaves HTTP; a
   * blocked fetch leaves nothing, and retrying it forever would only fill memory and the console.
   */
  private onBlocked(ev: SecurityPolicyViolationEvent): void {
    if (this.state === 'stopped' || this.authFailed || ev.disposition === 'report') return;
    // connect-src (or default-src, reported as connect-src) governs fetch and WebSocket; an <img> of
    // the service blocked by img-src says nothing about delivery.
    if (ev.effectiveDirective !== 'connect-src' || !isServerUrl(ev.blockedURI, this.config.serverUrl)) return;
    const policy = `the page's Content-Security-Policy (${ev.effectiveDirective})`;
    if (/^wss?:/i.test(ev.blockedURI)) {
      if (this.wsBlocked) return;
      this.wsBlocked = true;
      console.warn(`[tapedeck] ${policy} blocks WebSockets to ${this.config.serverUrl}; sending over HTTP instead`);
      if (this.ws) this.abandonSocket(this.ws, 0);
      this.clearTimer('reconnectTimer');
      this.pump();
      return;
    }
    this.selfStop(`${policy} blocks requests to ${this.config.serverUrl}. Allow it in connect-src`);
  }

  // ---- page lifecycle ----

  /** The page may be going away: cut, save what is unacked, and send it with keepalive requests. */
  private onHide(): void {
    if (this.state === 'stopped') return;
    this.decide();
    this.cut();
    // Once stopping, the store may already belong to a newer session of this page.
    if (this.state === 'running') this.seq.commit();
    this.persist();
    if (!this.authFailed) {
      let budget = KEEPALIVE_LIMIT - this.keepaliveBytes;
      for (const batch of [...this.queue.unacked()]) {
        if (batch.inFlight !== null) continue;
        const size = utf8Length(batch.body);
        if (size > budget) continue;
        budget -= size;
        void this.post(batch, true);
      }
    }
    this.pump(); // the rest goes over the socket if it is open
  }

  /** Visible again, or shown again: `restored` from the back/forward cache. */
  private onShow(restored = false): void {
    this.leaving = false;
    // Until begin() the saved batches belong to the previous page of this tab, and begin() re-queues
    // them: removing them here (pageshow comes before the tab check answers) lost them.
    if (this.state === 'stopped' || this.held) return;
    if (restored) {
      // Later pages of this tab used the counter, and the replay last saw their DOM, not ours. What
      // they left unacknowledged is ours to deliver now (the server de-duplicates by batch id).
      this.seq.resync();
      this.adoptPending();
      this.takeFullSnapshot();
      // Chromium shows the restored page before it hides the page it replaces, whose pagehide saves
      // its batches only then: take those too, a moment later.
      this.clearTimer('adoptTimer');
      this.adoptTimer = setTimeout(() => {
        this.adoptTimer = null;
        if (this.state !== 'stopped') this.adoptPending();
      }, ADOPT_AGAIN_MS);
    } else {
      this.adoptPending();
    }
    this.reconnectNow();
    this.pump();
  }

  /**
   * Re-queues the batches another page of this tab saved for this recording, then clears the store.
   * Those this page saved itself are still queued here or were acknowledged since (while hidden):
   * taking them again would only send them twice.
   */
  private adoptPending(): void {
    const key = pendingKey(this.recordingId);
    const saved = decodePending(this.config.store.getItem(key)).filter((b) => !this.savedIds.has(b.id));
    if (saved.length > 0) this.queue.restore(saved);
    this.config.store.removeItem(key);
    this.savedIds.clear();
    if (saved.length > 0) this.pump();
  }

  private persist(): void {
    const key = pendingKey(this.recordingId);
    // Keep what another page of this tab saved since we last took it (see onShow): overwriting it,
    // or removing it when we had nothing to save, lost that page's last batches.
    const ours = this.queue.unacked();
    const ourIds = new Set(ours.map((b) => b.id));
    const others = decodePending(this.config.store.getItem(key)).filter((b) => !ourIds.has(b.id) && !this.savedIds.has(b.id));
    const all = [...others, ...ours];
    const text = encodePending(all, PERSIST_MAX_CHARS);
    let saved = text !== null && this.config.store.setItem(key, text) ? text : null;
    if (text !== null && saved === null) {
      // Over the storage quota: keep what fits in a quarter of the budget.
      const smaller = encodePending(all, PERSIST_MAX_CHARS / 4);
      saved = smaller !== null && this.config.store.setItem(key, smaller) ? smaller : null;
    }
    if (saved === null) this.config.store.removeItem(key);
    this.savedIds.clear();
    for (const b of decodePending(saved)) if (ourIds.has(b.id)) this.savedIds.add(b.id);
  }

  // ---- plumbing ----

  private teardown(): void {
    if (this.state === 'stopped') return;
    this.state = 'stopped';
    for (const [target, type, fn] of this.listeners) target.removeEventListener(type, fn);
    this.listeners.length = 0;
    this.clearTimer('cutTimer');
    this.clearTimer('pumpTimer');
    this.clearTimer('reconnectTimer');
    this.clearTimer('connectTimer');
    this.clearTimer('adoptTimer');
    if (this.heartbeat !== null) clearInterval(this.heartbeat);
    this.heartbeat = null;
    const ws = this.ws;
    this.ws = null;
    this.wsOpen = false;
    if (ws) {
      ws.onopen = ws.onmessage = ws.onclose = ws.onerror = null;
      try {
        ws.close(1000, 'recording stopped');
      } catch {
        // ignore
      }
    }
    this.queue.releaseAll('ws');
    if (this.queue.size > 0 && !this.authFailed) this.persist();
  }

  private listen(target: EventTarget, type: string, fn: (ev: Event) => void): void {
    target.addEventListener(type, fn);
    this.listeners.push([target, type, fn]);
  }

  private clearTimer(name: 'cutTimer' | 'pumpTimer' | 'reconnectTimer' | 'connectTimer' | 'adoptTimer'): void {
    const t = this[name];
    if (t !== null) clearTimeout(t);
    this[name] = null;
  }
}
