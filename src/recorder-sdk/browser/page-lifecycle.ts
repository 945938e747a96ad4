// The page around the recording: hidden, left (pagehide), shown again, restored from the back/forward
// cache. Contract: whenever the page may go away, every unacknowledged batch is saved to
// sessionStorage (bounded, beside what other pages of the tab saved there) and sent with keepalive
// requests; the next page of the tab, or this one shown again, re-queues what it finds saved for the
// recording, except what it saved itself. The server de-duplicates by batch id, so a batch saved and
// also delivered costs a resend, never a duplicate.
import type { BatchQueue } from './batch-queue';
import type { HttpTransport } from './http-transport';
import { decodePending, encodePending } from './persist';
import { type SafeStore, pendingKey } from './storage';

type Timer = ReturnType<typeof setTimeout>;
export type Listener = [target: EventTarget, type: string, fn: (ev: Event) => void];

const PERSIST_MAX_CHARS = 2 * 1024 * 1024;
/** After a back/forward-cache restore, when to look again for what the page left behind saved. */
const ADOPT_AGAIN_MS = 1000;

/** What the page lifecycle needs from the session that owns it. */
export interface PageHost {
  recordingId(): string;
  /** The session has stopped for good. */
  isStopped(): boolean;
  /** Still recording: once stopping, the store may already belong to a newer session of this page. */
  isRecording(): boolean;
  /** Nothing can be delivered any more (the key was refused, or the CSP blocks the server). */
  isRefused(): boolean;
  /** The recording id is not settled yet: the saved batches still belong to the previous page. */
  isWaiting(): boolean;
  /** Settles the recording id and cuts what is buffered into a batch. */
  wrapUp(): void;
  /** No sequence id is handed out after this without writing the store first. */
  commitSequence(): void;
  /** Later pages of the tab used the sequence counter: continue after them. */
  resyncSequence(): void;
  takeFullSnapshot(): void;
  reconnectNow(): void;
  pump(): void;
}

export class PageLifecycle {
  /** Between pagehide and a pageshow: the page is going away and no timer may fire again. */
  leaving = false;
  private rehideQueued = false;
  private adoptTimer: Timer | null = null;
  /** Batch ids this page saved to sessionStorage itself (the rest there are other pages'). */
  private readonly savedIds = new Set<string>();
  private readonly listeners: Listener[] = [];

  constructor(
    private readonly host: PageHost,
    private readonly store: SafeStore,
    private readonly queue: BatchQueue,
    private readonly http: HttpTransport,
  ) {}

  /** Listens to the page's lifecycle events, then to the session's `others`; close() removes them all. */
  listen(others: Listener[]): void {
    const mine: Listener[] = [
      [document, 'visibilitychange', () => (document.visibilityState === 'hidden' ? this.hide() : this.show())],
      [
        window,
        'pagehide',
        () => {
          this.leaving = true;
          this.hide();
        },
      ],
      [window, 'pageshow', (ev) => this.show((ev as PageTransitionEvent).persisted)],
    ];
    for (const [target, type, fn] of [...mine, ...others]) {
      target.addEventListener(type, fn);
      this.listeners.push([target, type, fn]);
    }
  }

  /**
   * An event was recorded after pagehide (by the page's own pagehide, visibilitychange or unload
   * handlers): no timer fires again, so hand it over the way hide() did, once per burst of events.
   */
  recordedWhileLeaving(): void {
    if (this.rehideQueued) return;
    this.rehideQueued = true;
    queueMicrotask(() => {
      this.rehideQueued = false;
      if (this.leaving) this.hide();
    });
  }

  /** The page may be going away: cut, save what is unacked, and send it with keepalive requests. */
  hide(): void {
    const host = this.host;
    if (host.isStopped()) return;
    host.wrapUp();
    if (host.isRecording()) host.commitSequence();
    this.persist();
    if (!host.isRefused()) this.http.sendBeforeLeaving();
    host.pump(); // the rest goes over the socket if it is open
  }

  /** Visible again, or shown again: `restored` from the back/forward cache. */
  show(restored = false): void {
    this.leaving = false;
    // Until begin() the saved batches belong to the previous page of this tab, and begin() re-queues
    // them: removing them here (pageshow comes before the tab check answers) lost them.
    const host = this.host;
    if (host.isStopped() || host.isWaiting()) return;
    if (restored) {
      // Later pages of this tab used the counter, and the replay last saw their DOM, not ours. What
      // they left unacknowledged is ours to deliver now (the server de-duplicates by batch id).
      host.resyncSequence();
      this.adoptPending();
      host.takeFullSnapshot();
      // Chromium shows the restored page before it hides the page it replaces, whose pagehide saves
      // its batches only then: take those too, a moment later.
      this.cancelAdopt();
      this.adoptTimer = setTimeout(() => {
        this.adoptTimer = null;
        if (!host.isStopped()) this.adoptPending();
      }, ADOPT_AGAIN_MS);
    } else {
      this.adoptPending();
    }
    host.reconnectNow();
    host.pump();
  }

  /**
   * Re-queues the batches another page of this tab saved for this recording, then clears the store.
   * Those this page saved itself are still queued here or were acknowledged since (while hidden):
   * taking them again would only send them twice. Returns how many were re-queued.
   */
  takeSaved(): number {
    const key = pendingKey(this.host.recordingId());
    const saved = decodePending(this.store.getItem(key)).filter((b) => !this.savedIds.has(b.id));
    if (saved.length > 0) this.queue.restore(saved);
    this.store.removeItem(key);
    this.savedIds.clear();
    return saved.length;
  }

  /** Saves the unacknowledged batches for the next page of the tab (bounded). */
  persist(): void {
    const key = pendingKey(this.host.recordingId());
    // Keep what another page of this tab saved since we last took it (see show): overwriting it,
    // or removing it when we had nothing to save, lost that page's last batches.
    const ours = this.queue.unacked();
    const ourIds = new Set(ours.map((b) => b.id));
    const others = decodePending(this.store.getItem(key)).filter((b) => !ourIds.has(b.id) && !this.savedIds.has(b.id));
    const all = [...others, ...ours];
    const text = encodePending(all, PERSIST_MAX_CHARS);
    let saved = text !== null && this.store.setItem(key, text) ? text : null;
    if (text !== null && saved === null) {
      // Over the storage quota: keep what fits in a quarter of the budget.
      const smaller = encodePending(all, PERSIST_MAX_CHARS / 4);
      saved = smaller !== null && this.store.setItem(key, smaller) ? smaller : null;
    }
    if (saved === null) this.store.removeItem(key);
    this.savedIds.clear();
    for (const b of decodePending(saved)) if (ourIds.has(b.id)) this.savedIds.add(b.id);
  }

  /** The session stopped: no listener or timer fires again. */
  close(): void {
    for (const [target, type, fn] of this.listeners) target.removeEventListener(type, fn);
    this.listeners.length = 0;
    this.cancelAdopt();
  }

  private adoptPending(): void {
    if (this.takeSaved() > 0) this.host.pump();
  }

  private cancelAdopt(): void {
    if (this.adoptTimer !== null) clearTimeout(this.adoptTimer);
    this.adoptTimer = null;
  }
}
