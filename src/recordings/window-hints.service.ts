// Where a windowed read may start reading headers, from the keyframe index: the stream position of
// the first batch that reaches the keyframe at or before `from`. Only below the projector's ack floor
// is the index complete (a message not projected yet could be any batch), so the hint never goes
// above it. Best effort: without an answer (ClickHouse or NATS unreachable, nothing projected yet,
// bounds the lagging index cannot place) the read plans from every header, as it always can.
import { Injectable, Logger } from '@nestjs/common';
import type { ReadWindow, WindowHint } from '../domain/event-store';
import { keyframeAtOrBefore } from '../domain/keyframes';
import { NatsClient } from '../infrastructure/nats/nats-connection';
import { EVENTS_STREAM } from '../infrastructure/nats/subjects';
import { consumerName } from '../projections/consumer-config';
import { recordingProjection } from '../projections/recording-projection';
import { KeyframesRepository } from '../read-model/keyframes.repository';

@Injectable()
export class WindowHints {
  private readonly logger = new Logger('event-windows');

  constructor(
    private readonly keyframes: KeyframesRepository,
    private readonly nats: NatsClient,
  ) {}

  /** `window` with a hint when the index gives one (a window from the first event needs none). */
  async withHint(tenantId: string, recordingId: string, window: ReadWindow | undefined): Promise<ReadWindow | undefined> {
    if (!window) return window;
    try {
      const hint = await this.hint(tenantId, recordingId, window);
      return hint ? { ...window, hint } : window;
    } catch (e) {
      this.logger.debug({ msg: 'no window hint', tenantId, recordingId, err: String((e as Error).message) });
      return window;
    }
  }

  private async hint(tenantId: string, recordingId: string, window: ReadWindow): Promise<WindowHint | undefined> {
    const [span, keyframes] = await Promise.all([this.keyframes.span(tenantId, recordingId), this.keyframes.keyframes(tenantId, recordingId)]);
    if (!span) return undefined;
    const { from } = window.resolve(span.first, span.last);
    const start = from === undefined ? undefined : keyframeAtOrBefore(keyframes, from);
    if (!start) return undefined;
    const [seq, consumer] = await Promise.all([
      this.keyframes.firstBatchReaching(tenantId, recordingId, start.ts),
      this.nats.jsm.consumers.info(EVENTS_STREAM, consumerName(recordingProjection)),
    ]);
    if (seq === undefined) return undefined;
    const below = Math.min(seq, consumer.ack_floor.stream_seq + 1);
    return below > 1 ? { seq: below, ts: start.ts, first: span.first, last: span.last, ...(start.server ? { server: start.seq } : {}) } : undefined;
  }
}
