// One tenant's token bucket for one limit, as one instance sees it. The bucket itself is a shared
// document (every instance takes from it by compare-and-set); this instance leases a tenth of a
// second of the rate at a time and spends it locally, so most requests cost no round trip. A
// refusal is remembered until the bucket has refilled, so a flood over the limit is refused without
// asking NATS each time. When the shared store fails, the limit is not enforced (fail open: the
// limit protects the service, an outage of NATS must not add refusals of its own) and `onStoreError` is told.
import type { SharedDocuments } from '../infrastructure/nats/kv-documents';
import { BucketState, Rate, takeLease } from './token-bucket';

/** Seconds of the rate leased at a time: at most this much may sit unused on an instance. */
export const LEASE_SECONDS = 0.1;
/** After a failed round trip, the store is not asked again for this long (everything passes meanwhile). */
const FAIL_OPEN_MS = 1000;
/** Leases one request may wait for before it gives up (only under contention for the same tokens). */
const MAX_ROUNDS = 8;

export class LeasedBucket {
  /** Tokens leased and not yet spent. */
  private local = 0;
  /** Until when (epoch ms) the shared bucket is known to be empty. */
  private blockedUntil = 0;
  private failOpenUntil = 0;
  private leasing?: Promise<void>;

  constructor(
    private readonly docs: SharedDocuments,
    private readonly key: string,
    private readonly onStoreError: (e: unknown) => void,
  ) {}

  /** Seconds until the bucket refills, when this instance already knows it is empty; else 0. */
  blockedFor(now = Date.now()): number {
    return now < this.blockedUntil ? (this.blockedUntil - now) / 1000 : 0;
  }

  /** Takes `cost` tokens: resolves 0 when they were taken, else the seconds to wait (nothing taken). */
  async take(cost: number, rate: Rate): Promise<number> {
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const now = Date.now();
      if (this.local >= cost) {
        this.local -= cost;
        return 0;
      }
      if (now < this.blockedUntil) return (this.blockedUntil - now) / 1000;
      if (now < this.failOpenUntil) return 0;
      // Concurrent requests share one lease request; each then takes its part or leases again.
      if (!this.leasing) this.leasing = this.lease(cost - this.local, rate, now).finally(() => (this.leasing = undefined));
      await this.leasing;
    }
    return LEASE_SECONDS;
  }

  /** Gives back tokens taken for a request that was refused for another reason. */
  refund(cost: number): void {
    this.local += cost;
  }

  private async lease(need: number, rate: Rate, now: number): Promise<void> {
    try {
      const lease = await this.docs.update<BucketState, { granted: number; waitSeconds: number }>(this.key, (s) => {
        const l = takeLease(s, rate, now, need, need + rate.perSecond * LEASE_SECONDS);
        return { next: l.granted > 0 ? l.state : undefined, result: l };
      });
      if (lease.granted > 0) this.local += lease.granted;
      else this.blockedUntil = now + lease.waitSeconds * 1000;
    } catch (e) {
      this.failOpenUntil = Date.now() + FAIL_OPEN_MS;
      this.onStoreError(e);
    }
  }
}
