// A projection's durable pull consumer on TAPEDECK_EVENTS. Messages arrive headers-only (the
// Td-Summary header is all an `ev` needs); payloads of the kinds a projection asks for are read by
// sequence with direct get. This file is the projector's admin plane: it creates the consumer,
// updates its limits, and refuses to start on drift of its shape (filter, ack policy, headers-only).
import { Logger } from '@nestjs/common';
import type { Consumer, ConsumerInfo, JsMsg } from 'nats';
import type { AppConfig } from '../config/config';
import type { NatsClient } from '../infrastructure/nats/nats-connection';
import { provisionStreams } from '../infrastructure/nats/stream-provisioner';
import { EVENTS_STREAM } from '../infrastructure/nats/subjects';
import { loadBodies } from './body-loader';
import { directGet } from './direct-get';
import { consumerName, projectorConsumerConfig } from './consumer-config';
import { toProjectionMessage } from './js-message';
import { isConsumerNotFound, isNoMessage, isStreamNotFound } from './nats-errors';
import type { Projection, ProjectionMessage } from './projection';
import type { Delivery, ProjectionLag, ProjectionSource } from './projection-ports';

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
      if (have.filter_subject !== want.filter_subject || !!have.headers_only !== want.headers_only || have.ack_policy !== want.ack_policy || have.deliver_policy !== want.deliver_policy) {
        throw new ConsumerDriftError(
          `Consumer ${this.name} on ${EVENTS_STREAM} exists with filter ${have.filter_subject}, headers_only ${!!have.headers_only}, ack ${have.ack_policy}, deliver ${have.deliver_policy}; ` +
            `this build expects ${want.filter_subject}, ${want.headers_only}, ${want.ack_policy}, ${want.deliver_policy}. Delete the consumer (the projection then replays from the start) or fix the build.`,
        );
      }
      if (have.max_deliver !== want.max_deliver || have.ack_wait !== want.ack_wait || have.max_ack_pending !== want.max_ack_pending) {
        await this.nats.jsm.consumers.update(EVENTS_STREAM, this.name, { max_deliver: want.max_deliver, ack_wait: want.ack_wait, max_ack_pending: want.max_ack_pending });
        this.logger.log({ msg: 'updated projector consumer limits', consumer: this.name });
      }
    }
    this.consumer = await this.nats.js.consumers.get(EVENTS_STREAM, this.name);
  }

  async fetch(max: number, expiresMs: number): Promise<Delivery[]> {
    if (!this.consumer) await this.ensure();
    try {
      const it = await this.consumer!.fetch({ max_messages: max, expires: expiresMs });
      const out: Delivery[] = [];
      for await (const m of it) out.push(delivery(m));
      return out;
    } catch (e) {
      if (isConsumerNotFound(e)) this.consumer = undefined;
      throw e;
    }
  }

  loadBodies(messages: ProjectionMessage[]): Promise<void> {
    return loadBodies(this.nats, messages, this.projection.bodyKinds);
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

function delivery(m: JsMsg): Delivery {
  return {
    message: toProjectionMessage(m),
    deliveryCount: m.info.redeliveryCount,
    ack: () => m.ack(),
    nak: (delayMs) => m.nak(delayMs),
    working: () => m.working(),
  };
}
