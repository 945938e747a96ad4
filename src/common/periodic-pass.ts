// The machinery of the background workers (archives, keyframes, thumbnails, retention): a pass run
// every interval, one at a time (a tick while one is under way joins it), a failed pass logged and
// tried again at the next tick, and a shutdown that starts none and waits for the one under way.
import type { Logger } from '@nestjs/common';

export class PeriodicPass {
  private first?: NodeJS.Timeout;
  private timer?: NodeJS.Timeout;
  private running?: Promise<unknown>;
  /** Set by stop(): a pass takes no new work once it is. */
  stopping = false;

  constructor(
    private readonly pass: () => Promise<unknown>,
    private readonly logger: Pick<Logger, 'warn'>,
    /** Logged when a pass fails. */
    private readonly failure: string,
  ) {}

  /** A pass every `intervalMs`, the first after `firstMs` (one interval by default); timers do not keep the process up. */
  start(intervalMs: number, firstMs = intervalMs): void {
    this.first = setTimeout(() => {
      void this.tick();
      this.timer = setInterval(() => void this.tick(), intervalMs);
      this.timer.unref();
    }, firstMs);
    this.first.unref();
  }

  /** One pass unless one is under way; resolves when it is done (never rejects). */
  tick(): Promise<unknown> {
    this.running ??= this.pass()
      .catch((e) => this.logger.warn({ msg: this.failure, err: String((e as Error).message) }))
      .finally(() => (this.running = undefined));
    return this.running;
  }

  /** No new pass, and `stopping` for the one under way. */
  stop(): void {
    this.stopping = true;
    clearTimeout(this.first);
    clearInterval(this.timer);
  }

  /** Stops, then waits for the pass under way. */
  async shutdown(): Promise<void> {
    this.stop();
    await this.running;
  }
}

/**
 * Runs `fn` over `items` in order, `concurrency` at a time; once `stopping()` answers true no new
 * item is taken (those under way finish). Rejects as soon as one `fn` does.
 */
export async function runPool<T>(
  items: readonly T[],
  concurrency: number,
  fn: (item: T) => Promise<unknown>,
  stopping: () => boolean = () => false,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length && !stopping()) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}
