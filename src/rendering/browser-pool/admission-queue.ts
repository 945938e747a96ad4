// Admission control in front of the browser: at most `concurrency` holders, at most `queueLimit`
// waiters, each waiting at most `waitMs`. Over capacity the caller is refused at once with 503 and
// Retry-After rather than piling up.
import { AppError, StoreUnavailable } from '../../common/app-error';

interface Waiter {
  grant: () => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

export class AdmissionQueue {
  private readonly waiters: Waiter[] = [];
  private holders = 0;
  private refused = 0;

  constructor(private readonly options: { concurrency: number; queueLimit: number; waitMs: number }) {}

  get inFlight(): number {
    return this.holders;
  }
  get queueLength(): number {
    return this.waiters.length;
  }
  get rejected(): number {
    return this.refused;
  }

  acquire(): Promise<void> {
    if (this.holders < this.options.concurrency) {
      this.holders++;
      return Promise.resolve();
    }
    if (this.waiters.length >= this.options.queueLimit) {
      this.refused++;
      return Promise.reject(busy());
    }
    return new Promise<void>((grant, reject) => {
      const waiter: Waiter = {
        grant,
        reject,
        timer: setTimeout(() => {
          this.waiters.splice(this.waiters.indexOf(waiter), 1);
          this.refused++;
          reject(busy());
        }, this.options.waitMs),
      };
      this.waiters.push(waiter);
    });
  }

  /** Hands the slot straight to the next waiter, if any. */
  release(): void {
    const next = this.waiters.shift();
    if (next) {
      clearTimeout(next.timer);
      next.grant();
    } else {
      this.holders--;
    }
  }

  rejectAll(err: Error): void {
    for (const w of this.waiters.splice(0)) {
      clearTimeout(w.timer);
      w.reject(err);
    }
  }
}

function busy(): AppError {
  return new StoreUnavailable('Renderer is busy, try again shortly');
}
