// The HTTP path of the recorder: one POST per batch, with the batch id as Idempotency-Key. Contract:
// a 2xx acks the batch; a 4xx other than 408/429 drops it (401/403: the key is refused and the
// session stops); anything else queues it again, and the next POST waits for the backoff or the
// server's Retry-After (a 429 or 507 pauses the socket too). One POST at a time while the page lives; when
// it may be going away, every queued batch that fits the 64 KB keepalive budget goes at once.
import { Backoff } from './backoff';
import type { Batch, BatchQueue } from './batch-queue';
import { classifyStatus, retryDelay, utf8Length } from './protocol';

/** Browsers refuse keepalive requests once those in flight carry more than 64 KB of body. */
const KEEPALIVE_LIMIT = 60_000;

/** What the HTTP transport needs from the session that owns it. */
export interface HttpHost {
  /** The server refused the public key (401/403): nothing will ever be delivered. */
  onRefused(status: number): void;
  /** The server asked to slow down (429, 507): nothing is sent, on either transport, until `until`. */
  pauseSending(until: number): void;
}

export class HttpTransport {
  /** The events endpoint of the recording. */
  url = '';
  private busy = false;
  private notBefore = 0;
  private readonly backoff = new Backoff(250, 10_000);
  private keepaliveBytes = 0;

  constructor(
    private readonly publicKey: string,
    private readonly queue: BatchQueue,
    private readonly host: HttpHost,
  ) {}

  /** A POST is under way (the pump sends one at a time). */
  get isBusy(): boolean {
    return this.busy;
  }

  /** How long until the next POST may go (after a failure); zero or less: now. */
  readyIn(now: number): number {
    return this.notBefore - now;
  }

  /** POSTs one batch in the background; `then` runs once it is settled. */
  sendNext(batch: Batch, then: () => void): void {
    this.busy = true;
    void this.post(batch, { unloading: false }).finally(() => {
      this.busy = false;
      then();
    });
  }

  /** The page may be going away: POSTs, with keepalive, every queued batch the budget allows. */
  sendBeforeLeaving(): void {
    let budget = KEEPALIVE_LIMIT - this.keepaliveBytes;
    for (const batch of [...this.queue.unacked()]) {
      if (batch.inFlight !== null) continue;
      const size = utf8Length(batch.body);
      if (size > budget) continue;
      budget -= size;
      void this.post(batch, { unloading: true });
    }
  }

  /** POSTs one batch. Settles the batch (ack, drop, or release for a retry); never rejects. */
  private async post(batch: Batch, { unloading }: { unloading: boolean }): Promise<void> {
    this.queue.markInFlight(batch, 'http');
    const size = utf8Length(batch.body);
    const keepalive = this.keepaliveBytes + size <= KEEPALIVE_LIMIT;
    if (keepalive) this.keepaliveBytes += size;
    let status = 0;
    let retryAfter = 0;
    try {
      const res = await fetch(this.url, {
        method: 'POST',
        keepalive,
        credentials: 'omit',
        headers: {
          Authorization: `Bearer ${this.publicKey}`,
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
      this.backoff.reset();
      return;
    }
    if (outcome === 'drop') {
      this.queue.drop(batch.id);
      if (status === 401 || status === 403) this.host.onRefused(status);
      return;
    }
    this.queue.release(batch.id);
    if (!unloading) {
      const delay = retryDelay(retryAfter, this.backoff.next());
      this.notBefore = Date.now() + delay;
      // Over a rate (429) or the stored-bytes quota (507): the socket would be refused as well.
      if (status === 429 || status === 507) this.host.pauseSending(this.notBefore);
    }
  }
}
