import type { NatsClient } from '../../src/infrastructure/nats/nats-connection';
import { directGet } from '../../src/infrastructure/nats/direct-get';
import { EVENTS_STREAM, H, recordingSubject } from '../../src/infrastructure/nats/subjects';

/**
 * A recording's `ev` messages in the event stream: sealed (records whose payload is in an archive,
 * which must carry no data) and raw. Walks the recording's own messages one after another (the next
 * on its subject from a sequence): the stream, shared with the other specs of a run, may hold tens of
 * thousands of others.
 */
export async function evMessages(nats: NatsClient, tenantId: string, recordingId: string): Promise<{ sealed: number; raw: number }> {
  const subject = recordingSubject(tenantId, recordingId, 'ev');
  const info = await nats.jsm.streams.info(EVENTS_STREAM, { subjects_filter: subject });
  const total = Object.values(info.state.subjects ?? {}).reduce((a: number, b) => a + (b as number), 0);
  let sealed = 0;
  for (let seq = 1, m; (m = await directGet(nats, { seq, next_by_subj: subject }).catch(() => undefined)); seq = m.seq + 1) {
    if (!m.header?.has(H.sealed)) continue;
    if (m.data.length !== 0) throw new Error(`sealed record at ${m.seq} of ${subject} carries ${m.data.length} bytes`);
    sealed++;
  }
  return { sealed, raw: total - sealed };
}
