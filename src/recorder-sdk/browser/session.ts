// One recording in progress: records with rrweb, cuts batches, and delivers them until acked.
// Contract: a batch is kept (same id) until the server acks it over WebSocket or answers 2xx over
// HTTP; it is dropped only on a 4xx other than 408/429 (counted as dropped) or by the 50 MB memory
// bound (counted as lost). Transport: WebSocket, falling back to HTTP POST while the socket is down
// for 3 s or the server reports 502/503; a batch is in flight on one transport at a time.
// The session orchestrates: the BatchQueue and EventBuffer hold the data, WebSocketTransport and
// HttpTransport carry it as the SendScheduler says, PageLifecycle saves and re-queues it as pages of
// the tab come and go.
import { BatchQueue, type QueueStats } from './batch-queue';
import { reactToPolicy } from './csp-reaction';
import { EventBuffer } from './event-buffer';
import { HttpTransport } from './http-transport';
import { uuid } from './ids';
import { PageLifecycle } from './page-lifecycle';
import { eventUrls } from './protocol';
import { type RecordOptions, firstMetaEvent, metaEvent, startRrweb, takeFullSnapshot } from './rrweb-recording';
import { SendScheduler } from './send-scheduler';
import { SequenceCounter } from './sequence';
import { SafeStore, pendingKey, sequenceKey } from './storage';
import { WebSocketTransport } from './websocket-transport';

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

const BATCH_INTERVAL_MS = 1000;
/** While someone watches the recording live (a `watch` frame): a batch this soon after its first event. */
const WATCHED_BATCH_INTERVAL_MS = 50;
const BATCH_MAX_EVENTS = 200;
const BATCH_MAX_BYTES = 512 * 1024;
const MAX_UNACKED_BYTES = 50 * 1024 * 1024;
const STOP_DRAIN_MS = 5000;
/**
 * rrweb hands over what its throttles still hold after its stop (the last mouse positions wait up to
 * `sampling.mousemoveCallback`, 500 ms by default; scrolls up to `sampling.scroll`): moments from
 * before stop(), so stop() takes them for this long (and a little more) before its last batch.
 */
function trailingMs(o: RecordOptions): number {
  const s = o.sampling ?? {};
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
  return Math.min(STOP_DRAIN_MS, Math.max(500, num(s.mousemoveCallback), num(s.scroll)) + 50);
}

export class RecorderSession {
  private id: string;
  private readonly queue = new BatchQueue(MAX_UNACKED_BYTES);
  private readonly buffer = new EventBuffer(BATCH_MAX_EVENTS, BATCH_MAX_BYTES);
  private readonly socket: WebSocketTransport;
  private readonly http: HttpTransport;
  private readonly page: PageLifecycle;
  private readonly sender: SendScheduler;
  private seq: SequenceCounter;
  /** Events recorded before begin() fixed the recording id; null from then on. */
  private held: Array<Record<string, unknown>> | null = [];
  private decideNow: (() => void) | null = null;
  private markBegun: () => void = () => undefined;
  private readonly begun = new Promise<void>((resolve) => (this.markBegun = resolve));
  private state: 'running' | 'stopping' | 'stopped' = 'running';
  private stopRecording: (() => void) | undefined;
  private eventsRecorded = 0;
  private cutTimer: Timer | null = null;
  /** Someone watches live until then (epoch ms): batches are cut quickly. */
  private watched = 0;
  /** Nothing can be delivered (the key was refused, or the page's CSP blocks the server). */
  private authFailed = false;

  constructor(private readonly config: SessionConfig) {
    this.id = config.recordingId;
    // What the parts may ask of the session.
    const session = {
      recordingId: () => this.id,
      isStopped: () => this.state === 'stopped',
      isRecording: () => this.state === 'running',
      isRefused: () => this.authFailed,
      isWaiting: () => this.held !== null,
      pump: () => this.sender.pump(),
      pauseSending: (until: number) => this.sender.pauseSending(until),
      watchedUntil: (until: number) => {
        const was = this.watched > Date.now();
        this.watched = Math.max(this.watched, until);
        // What waits for the one-second cut goes now.
        if (!was && this.cutTimer !== null) {
          this.send();
        }
      },
    };
    this.socket = new WebSocketTransport(this.queue, session);
    this.http = new HttpTransport(config.publicKey, this.queue, {
      ...session,
      onRefused: (status) => this.selfStop(`the server refused the public key (HTTP ${status})`),
    });
    this.sender = new SendScheduler(this.queue, this.socket, this.http, session);
    const page = {
      ...session,
      wrapUp: () => {
        this.decide();
        this.cut();
      },
      commitSequence: () => this.seq.commit(),
      resyncSequence: () => this.seq.resync(),
      takeFullSnapshot: () => {
        if (this.state === 'running' && this.stopRecording) takeFullSnapshot();
      },
      reconnectNow: () => this.socket.reconnectNow(),
    };
    this.page = new PageLifecycle(page, config.store, this.queue, this.http);
    this.seq = this.useId(config.recordingId);
  }

  /** The recording id; it may change once, in begin(), while the tab check runs. */
  get recordingId(): string {
    return this.id;
  }

  private useId(recordingId: string): SequenceCounter {
    this.id = recordingId;
    const { serverUrl, publicKey, transport } = this.config;
    const urls = eventUrls(serverUrl, recordingId, publicKey, transport === 'websocket' && typeof WebSocket !== 'undefined');
    this.http.url = urls.http;
    this.socket.url = urls.websocket;
    return new SequenceCounter(this.config.store, sequenceKey(recordingId));
  }

  /**
   * Starts recording. Events are held (no sequenceId, nothing sent) until begin() fixes the recording
   * id; `decideNow`, when given, makes that happen at once (the page is going away or stopping).
   */
  start(decideNow: (() => void) | null = null): void {
    this.decideNow = decideNow;
    this.push(firstMetaEvent(this.config.meta));
    const policy = { isDone: () => this.state === 'stopped' || this.authFailed, pump: () => this.sender.pump(), selfStop: (why: string) => this.selfStop(why) };
    this.page.listen([
      [window, 'online', () => this.socket.reconnectNow()],
      [document, 'securitypolicyviolation', (ev) => reactToPolicy(ev as SecurityPolicyViolationEvent, this.config.serverUrl, this.socket, policy)],
    ]);
    this.stopRecording = startRrweb(this.config.recordOptions, (event) => this.push(event));
  }

  /** Fixes the recording id: re-queues what earlier pages of the tab left, then sends held events. */
  begin(recordingId: string): void {
    const held = this.held;
    if (!held) return;
    this.held = null;
    this.decideNow = null;
    if (recordingId !== this.id) this.seq = this.useId(recordingId);
    const restored = this.page.takeSaved();
    for (const event of held) this.push(event);
    this.socket.connect();
    if (restored > 0) this.sender.pump();
    this.markBegun();
  }

  /** Before anything that needs the recording id settled (leaving the page, stopping). */
  private decide(): void {
    if (!this.held) return;
    this.decideNow?.();
    this.begin(this.id); // no decision came: keep the id we have
  }

  addMeta(meta: Record<string, unknown>): void {
    this.push(metaEvent({ ...meta }));
  }

  /** Resolves when everything recorded so far is acknowledged (or dropped/lost, see stats()). */
  flush(): Promise<void> {
    return this.begun.then(() => {
      this.send();
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
    // A start() in this page continues from the next id (one handed out while stopping leases a new block).
    this.seq.commit();
    this.send();
    const timers: Timer[] = [];
    const after = (ms: number) => new Promise<void>((resolve) => timers.push(setTimeout(resolve, ms)));
    const trailing = after(trailingMs(this.config.recordOptions)).then(() => {
      this.send();
      return this.queue.whenSettled();
    });
    await Promise.race([trailing, after(STOP_DRAIN_MS)]);
    timers.forEach(clearTimeout);
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
      transport: this.socket.carrying(now) ? 'websocket' : this.socket.fallsBack(now) ? 'http' : 'none',
      recording: this.state === 'running',
      bufferedEvents: this.buffer.size + (this.held?.length ?? 0),
      eventsRecorded: this.eventsRecorded,
      ...this.queue.stats(),
    };
  }

  // ---- events and batches ----

  private push(event: Record<string, unknown>): void {
    // While stopping: what rrweb's throttles hand over late (see trailingMs).
    if (this.state === 'stopped') return;
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
    if (this.page.leaving) {
      this.page.recordedWhileLeaving();
    } else if (full) {
      this.send();
    } else if (this.cutTimer === null) {
      this.cutTimer = setTimeout(
        () => {
          this.cutTimer = null;
          this.send();
        },
        this.watched > Date.now() ? WATCHED_BATCH_INTERVAL_MS : BATCH_INTERVAL_MS,
      );
    }
  }

  /** Cuts the buffer into a batch and lets the sender go on. */
  private send(): void {
    this.cut();
    this.sender.pump();
  }

  private cut(): void {
    if (this.cutTimer !== null) {
      clearTimeout(this.cutTimer);
      this.cutTimer = null;
    }
    const batch = this.buffer.take();
    if (batch) this.queue.add(uuid(), batch.body, batch.events);
  }

  // ---- refusals ----

  /** Nothing recorded here can ever be delivered: say why once, and stop. */
  private selfStop(reason: string): void {
    if (this.authFailed) return;
    this.authFailed = true;
    console.warn(`[tapedeck] ${reason}; recording stopped`);
    this.config.onSelfStop?.();
    void this.stop();
  }

  // ---- plumbing ----

  private teardown(): void {
    if (this.state === 'stopped') return;
    this.state = 'stopped';
    if (this.cutTimer !== null) clearTimeout(this.cutTimer);
    this.cutTimer = null;
    this.sender.close();
    this.page.close();
    this.socket.close();
    this.queue.releaseAll('ws');
    if (this.queue.size > 0 && !this.authFailed) this.page.persist();
  }
}
