// "Someone watches this recording live": a core NATS message on td.watch.<tenant>.<recording>, sent by
// the instance that serves the viewers when a recording gains its first viewer there and every few
// seconds while it has any (LiveHub), and heard by every instance (one subscription each). An
// ingestion WebSocket of that recording then sends its batches quickly: our recorder is told with a
// `watch` frame (it asked for them with watch=1) and cuts batches every 50 ms instead of every second;
// frames of rrweb's own clients are stored after 20 ms instead of 250. Nobody watching costs nothing:
// no message, and ingestion batches as before. Best effort: a lost signal only means slower batches.
import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import type { Subscription } from 'nats';
import { NatsClient } from '../infrastructure/nats/nats-connection';

const SUBJECT_ROOT = 'td.watch';
/** How long one signal makes ingestion hurry; renewed every WATCH_RENEW_MS while watched. */
export const WATCH_SECONDS = 15;
export const WATCH_RENEW_MS = 5_000;

@Injectable()
export class WatchSignals implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('live');
  private readonly listeners = new Map<string, Set<(seconds: number) => void>>();
  private sub?: Subscription;

  constructor(private readonly nats: NatsClient) {}

  onApplicationBootstrap(): void {
    this.sub = this.nats.nc.subscribe(`${SUBJECT_ROOT}.>`, {
      callback: (err, msg) => {
        if (err) return;
        const fns = this.listeners.get(msg.subject.slice(SUBJECT_ROOT.length + 1));
        if (fns) for (const fn of fns) fn(WATCH_SECONDS);
      },
    });
  }

  onModuleDestroy(): void {
    this.sub?.unsubscribe();
  }

  /** Tells every instance that the recording is watched (for the next WATCH_SECONDS). */
  announce(tenantId: string, recordingId: string): void {
    try {
      this.nats.nc.publish(`${SUBJECT_ROOT}.${tenantId}.${recordingId}`);
    } catch (e) {
      this.logger.debug({ msg: 'watch signal not sent', err: String((e as Error).message) });
    }
  }

  /** Calls `fn` whenever the recording is announced as watched; returns the function that stops it. */
  listen(tenantId: string, recordingId: string, fn: (seconds: number) => void): () => void {
    const key = `${tenantId}.${recordingId}`;
    let fns = this.listeners.get(key);
    if (!fns) this.listeners.set(key, (fns = new Set()));
    fns.add(fn);
    return () => {
      fns.delete(fn);
      if (fns.size === 0 && this.listeners.get(key) === fns) this.listeners.delete(key);
    };
  }
}
