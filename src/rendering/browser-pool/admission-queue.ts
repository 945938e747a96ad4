// Admission control in front of the browser: at most `concurrency` holders, at most `queueLimit`
// waiters, each waiting at most `waitMs`. Over capacity the caller is refused at once with 503 and
// Retry-After rather than piling up. Waiters take turns by owner (a tenant): a freed slot goes to
// the waiting owner that holds the fewest slots (the longest unserved first among equals), first come
// first served within an owner, so one tenant's burst of renders delays another tenant's render by
// about one render, not by the whole burst. And while more than one owner renders (one asked within
// the last minute), no owner holds every slot: one stays for the others, so another tenant's render
// starts at once instead of after one of the busy tenant's renders.
import { AppError, StoreUnavailable } from '../../common/app-error';

/** An owner that asked for a slot this recently counts as rendering (see capOf). */
export const ACTIVE_OWNER_MS = 60_000;

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
  /** When each owner last asked for a slot. */
  private readonly asked = new Map<string, number>();
  /** Those waiting for no slot to be held or asked for (whenIdle). */
  private idleWaiters: (() => void)[] = [];

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

  /**
   * Resolves once no slot is held and nobody waits for one: background work (thumbnails) starts
   * only then, without polling. At once when idle already.
   */
  whenIdle(): Promise<void> {
    if (this.idle) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private get idle(): boolean {
    return this.holders === 0 && this.waiters === 0;
  }

  private notifyIdle(): void {
    if (!this.idle || this.idleWaiters.length === 0) return;
    const waiting = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiting) resolve();
  }

  acquire(owner = ''): Promise<void> {
    this.asked.delete(owner); // re-inserted last: the map stays in order of asking
    this.asked.set(owner, Date.now());
    if (this.holders < this.options.concurrency && this.mayHold(owner)) {
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

  /** Frees a slot of `owner` (as acquired): it goes straight to the next waiter that may take it, if any. */
  release(owner = ''): void {
    const left = (this.held.get(owner) ?? 1) - 1;
    if (left > 0) this.held.set(owner, left);
    else this.held.delete(owner);
    this.holders--;
    while (this.holders < this.options.concurrency && this.grantNext());
    this.notifyIdle();
  }

  /** Grants a slot to the eligible waiting owner holding the fewest (the rotation breaks ties); false when none may take it. */
  private grantNext(): boolean {
    let queue: Waiter[] | undefined;
    for (const [candidate, waiting] of this.waiting) {
      if (!this.mayHold(candidate)) continue;
      if (!queue || (this.held.get(candidate) ?? 0) < (this.held.get(queue[0].owner) ?? 0)) queue = waiting;
    }
    if (!queue) return false;
    const waiter = queue.shift()!;
    this.waiters--;
    this.waiting.delete(waiter.owner);
    if (queue.length) this.waiting.set(waiter.owner, queue); // to the end of the rotation
    clearTimeout(waiter.timer);
    this.hold(waiter.owner);
    waiter.grant();
    return true;
  }

  /** Whether `owner` may take one more slot: all of them while it renders alone, all but one while others render too. */
  private mayHold(owner: string): boolean {
    const held = this.held.get(owner) ?? 0;
    const { concurrency } = this.options;
    return held < (concurrency > 1 && this.othersActive(owner) ? concurrency - 1 : concurrency);
  }

  private othersActive(owner: string): boolean {
    const since = Date.now() - ACTIVE_OWNER_MS;
    for (const [other, at] of this.asked) {
      if (at < since)
        this.asked.delete(other); // oldest first: forget those no longer rendering
      else if (other !== owner) return true;
    }
    return false;
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
    this.notifyIdle();
  }
}

function busy(): AppError {
  return new StoreUnavailable('Renderer is busy, try again shortly');
}
