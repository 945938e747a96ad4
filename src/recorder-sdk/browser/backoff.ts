// Exponential backoff with jitter: the n-th delay lies in [base/2, base] with base = min * 2^n,
// clamped to [min, max]. Reset after a success.
export class Backoff {
  private attempt = 0;

  constructor(
    readonly min = 250,
    readonly max = 10_000,
    private readonly random: () => number = Math.random,
  ) {}

  next(): number {
    const base = Math.min(this.max, this.min * 2 ** Math.min(this.attempt, 30));
    this.attempt++;
    const delay = Math.round(base * (0.5 + this.random() * 0.5));
    return Math.min(this.max, Math.max(this.min, delay));
  }

  reset(): void {
    this.attempt = 0;
  }

  get attempts(): number {
    return this.attempt;
  }
}
