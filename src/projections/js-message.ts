import type { JsMsg } from 'nats';
import { parseSealedRef } from '../infrastructure/nats/sealed-record';
import { H } from '../infrastructure/nats/subjects';
import type { ProjectionMessage } from './projection';

/** A JetStream message as projections see it; the payload is kept only when it was delivered. */
/**
 * A sealed batch record (docs/archives.md) is seen as the message it replaced: its sequence (the
 * rows' version), time and chunk header, its payload loaded from the archive (body-loader.ts), so a
 * rebuild after sealing writes the rows written before.
 */
export function toProjectionMessage(m: JsMsg): ProjectionMessage {
  const headersOnly = m.headers?.has('Nats-Msg-Size') ?? false;
  const sealedHeader = m.headers?.get(H.sealed) || undefined;
  const sealed = parseSealedRef(sealedHeader);
  return {
    seq: sealed?.s ?? m.seq,
    subject: m.subject,
    timeMs: sealed?.t ?? Math.floor(m.info.timestampNanos / 1e6),
    headers: {
      [H.batch]: m.headers?.get(H.batch) || undefined,
      [H.chunk]: sealed ? sealed.c : m.headers?.get(H.chunk) || undefined,
      [H.summary]: m.headers?.get(H.summary) || undefined,
      [H.keyframe]: m.headers?.get(H.keyframe) || undefined,
      [H.sealed]: sealedHeader,
      [H.activity]: m.headers?.get(H.activity) || undefined,
    },
    data: headersOnly || sealed ? undefined : m.data,
    ...(sealed ? { streamSeq: m.seq } : {}),
  };
}
