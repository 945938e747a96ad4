// Spaces each tenant's requests of one kind (HTTP ingestion, renders, read bytes) in this process to its rate
// instead of letting a burst through at once: requests a little ahead of the rate wait (up to
// `maxDelaySeconds`), those further ahead are refused as the rate limit would refuse them. The token
// buckets (tenant-rates.ts) still decide what a tenant may ingest or render on all instances
// together; this only decides *when* a request of this process goes on, so that a tenant using all
// its limits allow does so at an even pace instead of in bursts of its whole allowance, which other
// tenants' requests would wait behind (nginx's `limit_req` without `nodelay` does the same). A guard
// of this process's CPU, so not shared.
//
// Costs are in seconds of the tenant's rate, paid after the request goes, as nginx and GCRA do: a
// request waits for what its tenant's earlier requests have not paid yet, never for its own cost,
// so the first request after a pause goes at once whatever its size, and what it costs delays the
// next. The schedule is a token bucket of seconds refilling at one per second (token-bucket.ts),
// `toleranceSeconds` deep (what may go at once without waiting) and allowed into debt: a request's
// wait is the debt it finds, up to `maxDelaySeconds`. At most `maxHeld` requests of a tenant wait at
// once (each holds a connection): tiny requests cost little of the rate each, and a tenant sending
// many would otherwise park thousands here.
import { BucketState, refill } from './token-bucket';

export type Pace = { waitSeconds: number; refusedForSeconds?: undefined } | { refusedForSeconds: number; waitSeconds?: undefined };

interface Schedule extends BucketState {
  /** When each request waiting now goes on (epoch ms), oldest first: a later request never goes before an earlier one. */
  held: number[];
}

export class Pacer {
  private readonly schedules = new Map<string, Schedule>();

  constructor(
    private readonly toleranceSeconds: number,
    private readonly maxDelaySeconds: number,
    private readonly maxHeld = 1024,
  ) {}

  /**
   * Schedules a request costing `costSeconds` of the tenant's rate: how long it waits before it
   * goes on, or, when that would be more than the longest delay (or too many of the tenant's
   * requests wait already), for how long it is refused (nothing scheduled then).
   */
  pace(tenantId: string, costSeconds: number, now = Date.now()): Pace {
    if (!(costSeconds > 0)) return { waitSeconds: 0 };
    const { wait, held, cur } = this.due(tenantId, now);
    if (wait > this.maxDelaySeconds) return { refusedForSeconds: wait - this.maxDelaySeconds };
    if (wait > 0 && held.length >= this.maxHeld) return { refusedForSeconds: (held[0] - now) / 1000 };
    if (wait > 0) held.push(now + wait * 1000);
    this.charge(tenantId, cur, held, costSeconds, now);
    return { waitSeconds: wait };
  }

  /**
   * Schedules a cost that cannot be refused (the rest of a read already going, chunk by chunk): how
   * long it waits, whatever the debt. Not counted among the requests held.
   */
  owe(tenantId: string, costSeconds: number, now = Date.now()): number {
    if (!(costSeconds > 0)) return 0;
    const { wait, held, cur } = this.due(tenantId, now);
    this.charge(tenantId, cur, held, costSeconds, now);
    return wait;
  }

  /** The tenant's schedule now (refilled), the requests of it still held, and the debt a cost would wait for. */
  private due(tenantId: string, now: number) {
    const was = this.schedules.get(tenantId);
    const held = was?.held ?? [];
    while (held.length > 0 && held[0] <= now) held.shift();
    const cur = refill(was, { perSecond: 1, burst: this.toleranceSeconds }, now);
    return { cur, held, wait: Math.max(0, -cur.tokens) };
  }

  /** Adds a cost to the tenant's schedule, paid after it goes. */
  private charge(tenantId: string, cur: BucketState, held: number[], costSeconds: number, now: number) {
    this.schedules.set(tenantId, { tokens: cur.tokens - costSeconds, at: cur.at, held });
    this.forgetIdle(now);
  }

  /** Drops the schedules of tenants idle long enough to be back at full tolerance (bounded memory). */
  private forgetIdle(now: number) {
    if (this.schedules.size < 1024) return;
    for (const [id, s] of this.schedules) if (s.tokens + (now - s.at) / 1000 >= this.toleranceSeconds) this.schedules.delete(id);
  }
}
