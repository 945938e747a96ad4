// Ordered reads of one subject through an ephemeral consumer on the stream leader (the read pass of
// the event reader, the deleter's listing, duplicate repair). A scan yields at most what it was told
// to expect; a consumer lost mid-read is replaced, and callers check what they got against their plan.
import { Logger } from '@nestjs/common';
import type { ConsumerMessages, JsMsg } from 'nats';
import { StoreUnavailable } from '../../common/app-error';
import { isReadConsumerLost } from './jetstream-errors';
import { leaderConsumer } from './leader-consumer';
import type { NatsClient } from './nats-connection';

/** Timings of read consumers (shorter in tests of a reader that pauses). */
export interface ReadTuning {
  /** Expiry of each pull request. */
  pullExpiresMs: number;
  /** The server deletes a read consumer on which no pull waited this long. */
  readInactiveMs: number;
  /** Idle heartbeat of read pulls (default: 1 s, or half the expiry if shorter). */
  idleHeartbeatMs?: number;
}

export const DEFAULT_READ_TUNING: ReadTuning = { pullExpiresMs: 30_000, readInactiveMs: 60_000 };

/** How long a read waits on an idle consumer before it asks whether anything is left to deliver. */
export const READ_IDLE_CHECK_MS = 1000;

export interface ScanOptions {
  /** Headers only (no payloads): a pass that plans, lists or counts. */
  headersOnly: boolean;
  /** First stream sequence to read (0: from the start). */
  startSeq: number;
  /** Messages the caller counted; the scan stops after that many. */
  expected: number;
  signal?: AbortSignal;
  /** Messages per pull (default 1000 for headers, 64 with payloads). */
  maxMessages?: number;
}

export class MessageScanner {
  private readonly logger = new Logger('event-store');

  constructor(
    private readonly nats: NatsClient,
    private readonly tuning: ReadTuning = DEFAULT_READ_TUNING,
  ) {}

  /**
   * Reads up to `expected` messages of a subject through an ephemeral consumer on the stream leader
   * (see leader-consumer.ts: a replica's history may differ from the leader's on nats-server 2.9).
   * A consumer lost mid-read (the server deletes it once no pull has waited for its inactive
   * threshold: a reader that paused that long) is replaced by one starting after the last message
   * read; callers check what they got against what they planned.
   */
  async *scan(subject: string, o: ScanOptions): AsyncGenerator<JsMsg> {
    const { headersOnly, expected, signal } = o;
    const maxMessages = o.maxMessages ?? (headersOnly ? 1000 : 64);
    let next = o.startSeq;
    let read = 0;
    for (let fruitless = 0; fruitless < 3 && !signal?.aborted;) {
      let consumer;
      try {
        consumer = await leaderConsumer(this.nats, { filterSubject: subject, headersOnly, startSeq: next, inactiveThresholdMs: this.tuning.readInactiveMs });
      } catch (e) {
        this.logger.warn({ msg: 'no read consumer on the stream leader', err: String((e as Error).message) });
        throw new StoreUnavailable('Event store (NATS JetStream) cannot serve a consistent read now; retry later');
      }
      // Pull again when half was read: one pull request per maxMessages / 2 messages, none sent
      // beyond what the reader has taken (nats.js sends a refill only when its iterator reaches it).
      const expires = this.tuning.pullExpiresMs;
      const messages = await consumer.consume({
        max_messages: maxMessages,
        threshold_messages: Math.max(1, maxMessages >> 1),
        expires,
        idle_heartbeat: this.tuning.idleHeartbeatMs ?? Math.min(1000, expires / 2),
        abort_on_missing_resource: true,
      });
      let caughtUp = false;
      heartbeatsOnlyWhenCaughtUp(messages, () => caughtUp);
      const abort = () => messages.stop();
      signal?.addEventListener('abort', abort);
      const before = read;
      // The subject may hold fewer messages than counted (deleted since): with nothing
      // left to deliver, nats.js would wait for new ones forever. Callers check what they got.
      const drained = await nothingLeft(consumer, { cached: true });
      const watch = drained
        ? undefined
        : idleWatch(
            () => caughtUp,
            () => nothingLeft(consumer, { cached: false }),
            () => messages.stop(),
          );
      try {
        if (drained) return;
        const it = messages[Symbol.asyncIterator]();
        for (;;) {
          caughtUp = true; // waiting on nats.js: everything delivered was taken
          const r = await it.next();
          caughtUp = false;
          watch?.progress();
          if (r.done) break;
          const m = r.value;
          yield m;
          read++;
          next = m.seq + 1;
          if (read >= expected || m.info.pending === 0) return;
        }
        if (watch?.fired) return;
      } catch (e) {
        if (!isReadConsumerLost(e)) throw e;
      } finally {
        watch?.stop();
        signal?.removeEventListener('abort', abort);
        messages.stop();
        await consumer.delete().catch(() => undefined);
      }
      if (signal?.aborted) return;
      fruitless = read > before ? 0 : fruitless + 1;
      this.logger.warn({ msg: 'read consumer lost; continuing on a new one', subject, next, read, expected });
    }
  }
}

/**
 * nats.js (v2) treats two missed idle heartbeats as a lost pull and pulls a whole batch again, every
 * heartbeat interval after that. A reader that has not yet taken what was delivered (a slow HTTP
 * client) gets no heartbeats because no pull is waiting, so each second it was behind added a batch:
 * a client at ~40 KB/s had nats.js holding 12 MB ahead after 30 s, growing. Missed heartbeats count
 * only while the reader waits for messages (then a silence is a real stall). Relies on the v2
 * client's `monitor` field; without it (another client version) nothing changes.
 */
function heartbeatsOnlyWhenCaughtUp(messages: ConsumerMessages, caughtUp: () => boolean): void {
  const monitor = (messages as unknown as { monitor?: { callback?: (missed: number) => boolean; work?: () => void } }).monitor;
  const missed = monitor?.callback;
  if (!monitor || typeof missed !== 'function' || typeof monitor.work !== 'function') return;
  monitor.callback = (n: number) => {
    if (!caughtUp()) {
      monitor.work!();
      return false;
    }
    return missed.call(monitor, n);
  };
}

/** Whether a read consumer has delivered everything its filter holds (`cached`: as created). */
async function nothingLeft(consumer: { info(cached?: boolean): Promise<{ num_pending: number }> }, o: { cached: boolean }): Promise<boolean> {
  try {
    return (await consumer.info(o.cached)).num_pending === 0;
  } catch {
    return false; // not knowing is not "nothing left": the read goes on as before
  }
}

/**
 * Calls `stop` once the reader has been waiting (`waiting()`) READ_IDLE_CHECK_MS without progress
 * and `idle()` confirms nothing is left. One timer per read, nothing per message.
 */
export function idleWatch(waiting: () => boolean, idle: () => Promise<boolean>, stop: () => void, checkMs = READ_IDLE_CHECK_MS) {
  let last = Date.now();
  let checking = false;
  const w = {
    fired: false,
    progress: () => void (last = Date.now()),
    stop: () => clearInterval(timer),
  };
  const timer = setInterval(
    () => {
      if (checking || w.fired || !waiting() || Date.now() - last < checkMs) return;
      checking = true;
      void idle()
        .then((empty) => {
          if (empty && waiting() && Date.now() - last >= checkMs) {
            w.fired = true;
            stop();
          }
        })
        .finally(() => (checking = false));
    },
    Math.max(10, checkMs >> 1),
  );
  timer.unref?.();
  return w;
}
