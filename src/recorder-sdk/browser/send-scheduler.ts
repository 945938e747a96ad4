// Which transport sends the queued batches now, and when to look again. The socket fills its window;
// HTTP takes what it cannot (while it falls back, or batches marked httpOnly), one POST at a time.
// Nothing is sent while a pause the server asked for lasts; one timer wakes the pump when due.
import type { BatchQueue } from './batch-queue';
import type { HttpTransport } from './http-transport';
import type { WebSocketTransport } from './websocket-transport';

type Timer = ReturnType<typeof setTimeout>;

/** What the scheduler needs from the session that owns it. */
export interface SchedulerHost {
  /** The session has stopped: nothing is sent any more. */
  isStopped(): boolean;
  /** Nothing can be delivered any more (the key was refused, or the CSP blocks the server). */
  isRefused(): boolean;
}

export class SendScheduler {
  private timer: Timer | null = null;
  private timerAt = 0;
  /** After a 429 or an error frame asking to retry: nothing is sent until then. */
  private pausedUntil = 0;

  constructor(
    private readonly queue: BatchQueue,
    private readonly socket: WebSocketTransport,
    private readonly http: HttpTransport,
    private readonly host: SchedulerHost,
  ) {}

  /** The server asked to slow down: nothing is sent, on either transport, until `until`. */
  pauseSending(until: number): void {
    // A shorter pause asked later (another batch's error frame) does not cut a longer one short.
    this.pausedUntil = Math.max(this.pausedUntil, until);
  }

  /** Sends what can be sent now, on the transport that is usable now. */
  pump(): void {
    if (this.host.isStopped() || this.host.isRefused()) return;
    const now = Date.now();
    if (now < this.pausedUntil) return this.schedule(this.pausedUntil - now);

    const socketPaused = this.socket.fill(now);
    if (socketPaused !== null) this.schedule(socketPaused);

    if (this.queue.size === 0 || this.http.isBusy) return;
    const fallback = this.socket.fallsBack(now);
    const batch = this.queue.nextToSend((b) => fallback || b.httpOnly);
    if (!batch) {
      if (!fallback && !this.socket.isOpen) this.schedule(this.socket.fallbackIn(now));
      return;
    }
    const wait = this.http.readyIn(now);
    if (wait > 0) return this.schedule(wait);
    this.http.sendNext(batch, () => this.pump());
  }

  /** The session stopped: no wake-up any more. */
  close(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(delay: number): void {
    const at = Date.now() + Math.max(0, delay);
    if (this.timer !== null && this.timerAt <= at) return;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(
      () => {
        this.timer = null;
        this.pump();
      },
      Math.max(0, delay) + 5,
    );
  }
}
