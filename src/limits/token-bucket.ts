// The arithmetic of a token bucket shared by every instance (one document per tenant and limit):
// it refills at `perSecond` up to `burst` and hands out leases. Pure, so the shared document can be
// changed by compare-and-set and the rules tested alone.

/** The shared document: tokens left at time `at` (epoch ms, the writer's clock). */
export interface BucketState {
  tokens: number;
  at: number;
}

export interface Rate {
  perSecond: number;
  /** Most tokens the bucket holds (what a tenant idle for a while may use at once). */
  burst: number;
}

/** The bucket at `now`: refilled for the time since `at`, never beyond burst; a clock behind `at` adds nothing. */
export function refill(s: BucketState | undefined, r: Rate, now: number): BucketState {
  if (!s) return { tokens: r.burst, at: now };
  const elapsed = Math.max(0, now - s.at);
  return { tokens: Math.min(r.burst, s.tokens + (elapsed / 1000) * r.perSecond), at: Math.max(s.at, now) };
}

export interface Lease {
  /** The bucket after the lease (unchanged when nothing was granted). */
  state: BucketState;
  granted: number;
  /** When nothing was granted: seconds until `need` (at most a full bucket) is there. */
  waitSeconds: number;
}

/**
 * Takes `need` tokens and, when the bucket has them, up to `want` (a lease the instance spends
 * locally). A cost above the whole burst passes once the bucket is full and leaves it in debt, so
 * a batch larger than the burst is slowed, never refused forever; the debt is paid by waiting.
 */
export function takeLease(s: BucketState | undefined, r: Rate, now: number, need: number, want: number): Lease {
  const cur = refill(s, r, now);
  const threshold = Math.min(need, r.burst);
  if (cur.tokens < threshold) return { state: cur, granted: 0, waitSeconds: (threshold - cur.tokens) / r.perSecond };
  const granted = Math.max(need, Math.min(want, cur.tokens));
  return { state: { tokens: cur.tokens - granted, at: cur.at }, granted, waitSeconds: 0 };
}
