// A projection's durable pull consumer on TAPEDECK_EVENTS. Messages arrive headers-only (the
// Td-Summary header is all an `ev` needs); payloads of the kinds a projection asks for are read by
// sequence with direct get. It creates the consumer, updates its limits, refuses to start on drift
// of its shape (filter, ack policy, headers-only), and pulls batches (see `fetch`).
import { Logger } from '@nestjs/common';
import type { Consumer, ConsumerInfo, JsMsg } from 'nats';
import type { AppConfig } from '../config/config';
import type { NatsClient } from '../infrastructure/nats/nats-connection';
import { provisionStreams } from '../infrastructure/nats/stream-provisioner';
import { EVENTS_STREAM, parseSubject } from '../infrastructure/nats/subjects';
import { loadBodies } from './body-loader';
import { directGet } from '../infrastructure/nats/direct-get';
import { consumerName, projectorConsumerConfig } from './consumer-config';
import { toProjectionMessage } from './js-message';
import { isConsumerNotFound, isNoMessage, isStreamNotFound } from '../infrastructure/nats/jetstream-errors';
import type { Projection, ProjectionMessage } from './projection';
import type { Delivery, FetchWait, ProjectionLag, ProjectionSource } from './projection-ports';

export class ConsumerDriftError extends Error {}

export class JetStreamProjectionSource implements ProjectionSource {
  private readonly logger = new Logger('projector');
  private consumer?: Consumer;
  readonly name: string;

  constructor(
    private readonly nats: NatsClient,
    private readonly projection: Projection,
    private readonly cfg: AppConfig,
  ) {
    this.name = consumerName(projection);
  }

  async ensure(): Promise<void> {
    this.consumer = undefined;
    const want = projectorConsumerConfig(this.projection);
    let info: ConsumerInfo | undefined;
    try {
      info = await this.nats.jsm.consumers.info(EVENTS_STREAM, this.name);
    } catch (e) {
      if (isStreamNotFound(e)) {
        this.logger.warn({ msg: 'event stream missing; provisioning it again', stream: EVENTS_STREAM });
        await provisionStreams(this.nats, this.cfg);
      } else if (!isConsumerNotFound(e)) throw e;
    }
    if (!info) {
      await this.nats.jsm.consumers.add(EVENTS_STREAM, want);
      this.logger.log({ msg: 'created projector consumer', consumer: this.name, filter: want.filter_subject });
    } else {
      const have = info.config;
      if (
        have.filter_subject !== want.filter_subject ||
        !!have.headers_only !== want.headers_only ||
        have.ack_policy !== want.ack_policy ||
        have.deliver_policy !== want.deliver_policy
      ) {
        throw new ConsumerDriftError(
          `Consumer ${this.name} on ${EVENTS_STREAM} exists with filter ${have.filter_subject}, headers_only ${!!have.headers_only}, ack ${have.ack_policy}, deliver ${have.deliver_policy}; ` +
            `this build expects ${want.filter_subject}, ${want.headers_only}, ${want.ack_policy}, ${want.deliver_policy}. Delete the consumer (the projection then replays from the start) or fix the build.`,
        );
      }
      if (have.max_deliver !== want.max_deliver || have.ack_wait !== want.ack_wait || have.max_ack_pending !== want.max_ack_pending) {
        await this.nats.jsm.consumers.update(EVENTS_STREAM, this.name, {
          max_deliver: want.max_deliver,
          ack_wait: want.ack_wait,
          max_ack_pending: want.max_ack_pending,
        });
        this.logger.log({ msg: 'updated projector consumer limits', consumer: this.name });
      }
    }
    this.consumer = await this.nats.js.consumers.get(EVENTS_STREAM, this.name);
  }

  /**
   * Latency at low rates, batches at high rates. A pull of `max` messages would wait for `max`
   * messages or its expiry (at 100 messages/s that is always the expiry, so every message waited up
   * to `expiresMs`); instead a pull of one message long-polls for the first, then, unless the
   * consumer already has a full batch pending, `lingerMs` pass (or time until `notBefore`, the
   * runner's spacing of writes, when that is longer, unless the first is a deletion marker) and one
   * pull takes what has arrived:
   * exactly as many messages as the consumer counts pending then (up to `max - 1`), so it ends as
   * soon as they are delivered (its expiry, REST_EXPIRES_MS, is reached only when fewer were
   * deliverable). nats.js refuses `fetch` expiries under 1000 ms, which is why the linger is not an
   * expiry. A pull whose request or answer was lost (nats-server killed while it was outstanding)
   * must not stop the projector for good with /readyz still "ready": both pulls are stopped by a
   * guard well beyond their normal length (see `drain`).
   */
  async fetch(max: number, wait: FetchWait): Promise<Delivery[]> {
    if (!this.consumer) await this.ensure();
    let first: JsMsg[];
    try {
      first = await drain(await this.consumer!.fetch({ max_messages: 1, expires: wait.expiresMs }), wait.expiresMs + PULL_GUARD_MS, this.stuck('long-poll'));
      // A pull on a consumer deleted before it was sent just expires: an idle consumer may be gone.
      if (first.length === 0) await this.nats.jsm.consumers.info(EVENTS_STREAM, this.name);
    } catch (e) {
      if (isConsumerNotFound(e)) this.consumer = undefined;
      throw e;
    }
    if (first.length === 0 || max === 1) return first.map(delivery);
    // A deletion marker first waits only the linger: DELETE answers once the projections applied it,
    // and a console deleting recordings one after another would wait the write interval for each.
    const spaced = parseSubject(first[0].subject)?.kind !== 'del';
    const fill = Math.max(wait.lingerMs, spaced ? (wait.notBefore ?? 0) - Date.now() : 0);
    if (first[0].info.pending < max - 1 && fill > 0) await sleep(fill);
    let rest: JsMsg[] = [];
    try {
      // As many as the consumer has pending now (at most max - 1): a pull of what is there ends when
      // the last of them arrives, with no expiry to wait out. Not nats.js's no-wait fetch: it stopped
      // at a message sent with pending 0 while the server went on sending those that arrived
      // meanwhile, which were dropped, unacknowledged until ack_wait, and at times dropped again
      // (the ingestion bench: 6 of 4 000 messages held 30 s, a projection 2 minutes behind).
      const pending = (await this.nats.jsm.consumers.info(EVENTS_STREAM, this.name)).num_pending;
      const n = Math.min(max - 1, pending);
      if (n > 0)
        rest = await drain(await this.consumer!.fetch({ max_messages: n, expires: REST_EXPIRES_MS }), REST_EXPIRES_MS + PULL_GUARD_MS, this.stuck('rest'));
    } catch (e) {
      // The first message is in hand: project it; the next pull meets the failure again.
      this.logger.warn({
        msg: 'pull of the pending messages failed; projecting the first message alone',
        consumer: this.name,
        err: String((e as Error)?.message ?? e),
      });
    }
    return [...first, ...rest].map(delivery);
  }

  private stuck(pull: string) {
    return () =>
      this.logger.warn({
        msg: 'pull got no answer; stopped it (what it delivered is projected, the rest is redelivered after ack_wait)',
        pull,
        consumer: this.name,
        guardMs: PULL_GUARD_MS,
      });
  }

  loadBodies(messages: ProjectionMessage[]): Promise<void> {
    return loadBodies(this.nats, messages, this.projection);
  }

  async lag(): Promise<ProjectionLag> {
    const [ci, si] = await Promise.all([this.nats.jsm.consumers.info(EVENTS_STREAM, this.name), this.nats.jsm.streams.info(EVENTS_STREAM)]);
    const lag: ProjectionLag = {
      pending: ci.num_pending,
      ackPending: ci.num_ack_pending,
      ackFloorSeq: ci.ack_floor.stream_seq,
      streamLastSeq: si.state.last_seq,
      oldestUnprojectedAgeSeconds: 0,
    };
    if (lag.pending + lag.ackPending > 0) {
      try {
        const oldest = await directGet(this.nats, { seq: lag.ackFloorSeq + 1, next_by_subj: this.projection.filterSubject });
        lag.oldestUnprojectedAgeSeconds = Math.max(0, (Date.now() - oldest.time.getTime()) / 1000);
      } catch (e) {
        if (!isNoMessage(e)) throw e;
      }
    }
    return lag;
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** How long past its normal end a pull may go unanswered before it is stopped. */
export const PULL_GUARD_MS = 5_000;

/**
 * Expiry of the pull that takes what is pending after the first message: it ends sooner, when its
 * messages have arrived; it runs out only when fewer were deliverable than counted (another worker
 * took some, a message was deleted). nats.js's minimum.
 */
export const REST_EXPIRES_MS = 1_000;

/**
 * A pull's messages. One still running after `guardMs` is stopped (its request or answer was lost):
 * what it delivered is kept; a message arriving later is dropped here and redelivered after ack_wait.
 */
export async function drain(it: AsyncIterable<JsMsg> & { stop?: (err?: Error) => void }, guardMs: number, onStuck: () => void): Promise<JsMsg[]> {
  const out: JsMsg[] = [];
  const guard = setTimeout(() => {
    onStuck();
    it.stop?.();
  }, guardMs);
  try {
    for await (const m of it) out.push(m);
  } finally {
    clearTimeout(guard);
  }
  return out;
}

function delivery(m: JsMsg): Delivery {
  return {
    message: toProjectionMessage(m),
    deliveryCount: m.info.redeliveryCount,
    ack: () => m.ack(),
    nak: (delayMs) => m.nak(delayMs),
    working: () => m.working(),
  };
}
