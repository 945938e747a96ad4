import type { JsMsg } from 'nats';
import { H } from '../infrastructure/nats/subjects';
import type { ProjectionMessage } from './projection';

/** A JetStream message as projections see it; the payload is kept only when it was delivered. */
export function toProjectionMessage(m: JsMsg): ProjectionMessage {
  const headersOnly = m.headers?.has('Nats-Msg-Size') ?? false;
  return {
    seq: m.seq,
    subject: m.subject,
    timeMs: Math.floor(m.info.timestampNanos / 1e6),
    headers: {
      [H.batch]: m.headers?.get(H.batch) || undefined,
      [H.chunk]: m.headers?.get(H.chunk) || undefined,
      [H.summary]: m.headers?.get(H.summary) || undefined,
      [H.keyframe]: m.headers?.get(H.keyframe) || undefined,
    },
    data: headersOnly ? undefined : m.data,
  };
}
