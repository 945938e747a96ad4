/** Token bucket per key: `take` returns 0 when allowed, else the seconds to wait. 0 rate disables. */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly perSecond: number,
    private readonly burst: number,
  ) {}

  take(id: string, now = Date.now()): number {
    if (this.perSecond <= 0) return 0;
    const b = this.buckets.get(id) ?? { tokens: this.burst, at: now };
    b.tokens = Math.min(this.burst, b.tokens + ((now - b.at) / 1000) * this.perSecond);
    b.at = now;
    this.buckets.set(id, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return (1 - b.tokens) / this.perSecond;
  }
}
