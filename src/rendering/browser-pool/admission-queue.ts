// Admission control in front of the browser: at most `concurrency` holders, at most `queueLimit`
// waiters, each waiting at most `waitMs`. Over capacity the caller is refused at once with 503 and
// Retry-After rather than piling up. Waiters take turns by owner (a tenant): a freed slot goes to
// the waiting owner that holds the fewest slots (the longest unserved first among equals), first come
// first served within an owner, so one tenant's burst of renders delays another tenant's render by
// about one render, not by the whole burst.
import { AppError, StoreUnavailable } from '../../common/app-error';

interface Waiter {
  owner: string;
  grant: () => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

export class AdmissionQueue {
  /** Waiters by owner; the map's order is the rotation (an owner served goes to its end). */
  private readonly waiting = new Map<string, Waiter[]>();
  private waiters = 0;
  private holders = 0;
  /** Slots held, by owner. */
  private readonly held = new Map<string, number>();
  private refused = 0;

  constructor(private readonly options: { concurrency: number; queueLimit: number; waitMs: number }) {}

  get inFlight(): number {
    return this.holders;
  }
  get queueLength(): number {
    return this.waiters;
  }
  get rejected(): number {
    return this.refused;
  }

  acquire(owner = ''): Promise<void> {
    if (this.holders < this.options.concurrency) {
      this.hold(owner);
      return Promise.resolve();
    }
    if (this.waiters >= this.options.queueLimit) {
      this.refused++;
      return Promise.reject(busy());
    }
    return new Promise<void>((grant, reject) => {
      const waiter: Waiter = {
        owner,
        grant,
        reject,
        timer: setTimeout(() => {
          this.remove(waiter);
          this.refused++;
          reject(busy());
        }, this.options.waitMs),
      };
      const queue = this.waiting.get(owner);
      if (queue) queue.push(waiter);
      else this.waiting.set(owner, [waiter]);
      this.waiters++;
    });
  }

  /** Frees a slot of `owner` (as acquired): it goes straight to the next waiter, if any. */
  release(owner = ''): void {
    const left = (this.held.get(owner) ?? 1) - 1;
    if (left > 0) this.held.set(owner, left);
    else this.held.delete(owner);
    this.holders--;
    let queue: Waiter[] | undefined;
    for (const [candidate, waiting] of this.waiting) {
      if (!queue || (this.held.get(candidate) ?? 0) < (this.held.get(queue[0].owner) ?? 0)) queue = waiting;
    }
    if (!queue) return;
    const waiter = queue.shift()!;
    this.waiters--;
    this.waiting.delete(waiter.owner);
    if (queue.length) this.waiting.set(waiter.owner, queue); // to the end of the rotation
    clearTimeout(waiter.timer);
    this.hold(waiter.owner);
    waiter.grant();
  }

  private hold(owner: string): void {
    this.holders++;
    this.held.set(owner, (this.held.get(owner) ?? 0) + 1);
  }

  rejectAll(err: Error): void {
    for (const queue of [...this.waiting.values()]) {
      for (const w of [...queue]) {
        this.remove(w);
        clearTimeout(w.timer);
        w.reject(err);
      }
    }
  }

  private remove(waiter: Waiter): void {
    const queue = this.waiting.get(waiter.owner);
    const at = queue ? queue.indexOf(waiter) : -1;
    if (!queue || at < 0) return;
    queue.splice(at, 1);
    this.waiters--;
    if (!queue.length) this.waiting.delete(waiter.owner);
  }
}

function busy(): AppError {
  return new StoreUnavailable('Renderer is busy, try again shortly');
}
