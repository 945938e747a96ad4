// The rate limits of every tenant on this instance: one leased bucket per tenant and limit, over
// the shared documents `rate.<tenantId>.<limit>` (see leased-bucket.ts). Refusals are RateLimited
// errors whose message names the limit and its value.
import { RateLimited } from '../common/app-error';
import type { SharedDocuments } from '../infrastructure/nats/kv-documents';
import { LIMIT_INFO, LimitName } from '../domain/tenant-limits';
import { LeasedBucket } from './leased-bucket';

export type RateLimitName = Extract<LimitName, 'ingestEventsPerSecond' | 'ingestBytesPerSecond' | 'readBytesPerSecond' | 'rendersPerSecond'>;

const REFUSALS: Record<RateLimitName, string> = {
  ingestEventsPerSecond: 'Ingestion rate limit reached',
  ingestBytesPerSecond: 'Ingestion rate limit reached',
  readBytesPerSecond: 'Read bandwidth limit reached',
  rendersPerSecond: 'Render rate limit reached',
};

/** A refusal by one of a tenant's limits (429), naming it for the metrics. */
export class OverLimit extends RateLimited {
  constructor(
    readonly limit: LimitName,
    message: string,
    retryAfterSeconds: number,
  ) {
    super(message, retryAfterSeconds);
  }
}

/**
 * A refusal of `limit` at `value` per second, retryable after `waitSeconds`; `share` below 1: the
 * tenant is slowed to that share of it while the instance's CPU is contended (contention.ts).
 */
export function rateLimited(limit: RateLimitName, value: number, waitSeconds: number, share = 1): OverLimit {
  const slowed = share < 1 ? `; slowed to ${Math.round(share * 100)}% of it while this instance's CPU is contended` : '';
  return new OverLimit(limit, `${REFUSALS[limit]}: this tenant may use ${value} ${LIMIT_INFO[limit].unit} (limit ${limit})${slowed}; retry later`, waitSeconds);
}

export class TenantRates {
  private readonly buckets = new Map<string, LeasedBucket>();

  constructor(
    private readonly docs: SharedDocuments,
    private readonly burstSeconds: number,
    private readonly onStoreError: (e: unknown) => void,
  ) {}

  private bucket(tenantId: string, limit: RateLimitName): LeasedBucket {
    const key = `rate.${tenantId}.${limit}`;
    let b = this.buckets.get(key);
    if (!b) this.buckets.set(key, (b = new LeasedBucket(this.docs, key, this.onStoreError)));
    return b;
  }

  /** Throws at once when this instance already knows the tenant is over `limit` (0: unlimited). */
  assertOpen(tenantId: string, limit: RateLimitName, value: number): void {
    if (value <= 0) return;
    const wait = this.buckets.get(`rate.${tenantId}.${limit}`)?.blockedFor() ?? 0;
    if (wait > 0) throw rateLimited(limit, value, wait);
  }

  /** Seconds to wait before `cost` fits `limit` (nothing taken then), or 0 once it was taken. */
  take(tenantId: string, limit: RateLimitName, value: number, cost: number): Promise<number> {
    if (value <= 0) return Promise.resolve(0);
    return this.bucket(tenantId, limit).take(cost, { perSecond: value, burst: value * this.burstSeconds });
  }

  /** Takes every cost or none: a refusal by one limit gives back what the others took, and names the limit that refused. */
  async takeAll(tenantId: string, costs: { limit: RateLimitName; value: number; cost: number }[]): Promise<void> {
    const waits = await Promise.all(costs.map((c) => this.take(tenantId, c.limit, c.value, c.cost)));
    const worst = waits.reduce((w, x, i) => (x > waits[w] ? i : w), 0);
    if (waits[worst] <= 0) return;
    waits.forEach((w, i) => w === 0 && costs[i].value > 0 && this.bucket(tenantId, costs[i].limit).refund(costs[i].cost));
    throw rateLimited(costs[worst].limit, costs[worst].value, waits[worst]);
  }
}
