// How much of a refused upload this process reads. A request refused before its body is read (the
// tenant already over an ingestion limit) is either drained (read and dropped, so that a client
// which reads its answer only once it has sent everything, as Python's http.client does, still gets
// the 429) or left unread with its connection closed (a client sending on would otherwise make Node
// read and drop everything it sends: a client resending 8 MiB batches 50 ms after each 429 had the
// service reading ~150 MB/s of garbage, its GC a third of the event loop). Each tenant's refused
// bodies are drained up to its own byte rate (ingestBytesPerSecond, with the usual burst) in this
// process: a client that waits for Retry-After finds the allowance refilled, one that does not is cut.
import { BucketState, takeLease } from './token-bucket';

/** Refused bodies up to this size are read and dropped whatever the tenant sent before. */
export const ALWAYS_DRAINED_BYTES = 64 * 1024;

export class RefusedBodies {
  private readonly buckets = new Map<string, BucketState>();

  constructor(private readonly burstSeconds: number) {}

  /** Whether a refused body of `bytes` is read (true) or left unread (false); `perSecond` 0: unlimited, always read. */
  drains(tenantId: string, bytes: number, perSecond: number, now = Date.now()): boolean {
    if (perSecond <= 0) return true;
    const lease = takeLease(this.buckets.get(tenantId), { perSecond, burst: perSecond * this.burstSeconds }, now, bytes, bytes);
    this.buckets.set(tenantId, lease.state);
    return lease.granted > 0;
  }
}
