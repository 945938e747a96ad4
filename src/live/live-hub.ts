// The live channels of this instance: one per recording being watched here, shared by its viewers
// (one JetStream consumer per watched recording and instance, not per viewer). A channel outlives its
// last viewer by a few seconds, so a reconnecting viewer finds it still following.
import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/config';
import { RecordingTails } from '../infrastructure/nats/recording-tail';
import { LiveChannel, LiveSink } from './live-channel';
import { KEEPALIVE } from './sse';
import { WATCH_RENEW_MS, WatchSignals } from './watch-signals';

const LINGER_MS = 5_000;
const KEEPALIVE_MS = 15_000;

/** A viewer the hub keeps alive (a comment line every 15 s). */
export interface KeptAlive extends LiveSink {
  keepalive(frame: Buffer): void;
}

@Injectable()
export class LiveHub implements OnModuleDestroy {
  private readonly channels = new Map<string, LiveChannel>();
  private readonly closing = new Map<LiveChannel, NodeJS.Timeout>();
  private readonly keepalive: NodeJS.Timeout;
  private readonly renew: NodeJS.Timeout;
  private readonly idleMs: number;

  constructor(
    private readonly tails: RecordingTails,
    private readonly watch: WatchSignals,
    @Inject(APP_CONFIG) cfg: Pick<AppConfig, 'LIVE_IDLE_SECONDS'>,
  ) {
    this.idleMs = cfg.LIVE_IDLE_SECONDS * 1000;
    this.keepalive = setInterval(() => {
      for (const c of this.channels.values()) for (const v of c.viewers) (v as KeptAlive).keepalive?.(KEEPALIVE);
    }, KEEPALIVE_MS);
    this.keepalive.unref();
    // Ingestion hurries while a recording is watched (watch-signals.ts): renewed while it has viewers.
    this.renew = setInterval(() => {
      for (const c of this.channels.values()) if (c.viewers.size > 0) this.watch.announce(c.tenantId, c.recordingId);
    }, WATCH_RENEW_MS);
    this.renew.unref();
  }

  /** Recordings followed on this instance, and their viewers here. */
  get size(): { channels: number; viewers: number } {
    let viewers = 0;
    for (const c of this.channels.values()) viewers += c.viewers.size;
    return { channels: this.channels.size, viewers };
  }

  /** Adds a viewer to the recording's channel (made on first use, not following until started). */
  join(tenantId: string, recordingId: string, viewer: LiveSink): LiveChannel {
    const key = `${tenantId}/${recordingId}`;
    let channel = this.channels.get(key);
    if (!channel) {
      channel = new LiveChannel(tenantId, recordingId, this.tails, this.idleMs, (c) => this.forget(c));
      this.channels.set(key, channel);
    }
    const pending = this.closing.get(channel);
    if (pending) {
      clearTimeout(pending);
      this.closing.delete(channel);
    }
    channel.viewers.add(viewer);
    if (channel.viewers.size === 1) this.watch.announce(tenantId, recordingId);
    return channel;
  }

  leave(channel: LiveChannel, viewer: LiveSink): void {
    channel.viewers.delete(viewer);
    if (channel.viewers.size > 0 || this.closing.has(channel) || this.channels.get(this.keyOf(channel)) !== channel) return;
    const t = setTimeout(() => {
      this.closing.delete(channel);
      if (channel.viewers.size === 0) this.forget(channel);
    }, LINGER_MS);
    t.unref();
    this.closing.set(channel, t);
  }

  /** Ends every feed (the instance is stopping: viewers may reconnect to another). */
  onModuleDestroy(): void {
    clearInterval(this.keepalive);
    clearInterval(this.renew);
    for (const c of [...this.channels.values()]) {
      c.endAll('shutdown');
      this.forget(c);
    }
  }

  private forget(channel: LiveChannel): void {
    channel.stop();
    const t = this.closing.get(channel);
    if (t) clearTimeout(t);
    this.closing.delete(channel);
    if (this.channels.get(this.keyOf(channel)) === channel) this.channels.delete(this.keyOf(channel));
  }

  private keyOf(c: LiveChannel): string {
    return `${c.tenantId}/${c.recordingId}`;
  }
}
