import type { StoredMsg } from 'nats';
import type { NatsClient } from '../../src/infrastructure/nats/nats-connection';
import { directGet } from '../../src/infrastructure/nats/direct-get';
import { isNoMessage } from '../../src/infrastructure/nats/jetstream-errors';
import { H, recordingSubject } from '../../src/infrastructure/nats/subjects';

/**
 * The event stream's messages on `subject`, in order: each the next on its subject from a sequence
 * (direct get), so the walk costs one lookup per message of the subject, not one per message of the
 * stream, which the other specs of a run share (tens of thousands after the soak).
 */
export async function* messagesOn(nats: NatsClient, subject: string): AsyncGenerator<StoredMsg> {
  for (let seq = 1; ;) {
    const m = await directGet(nats, { seq, next_by_subj: subject }).catch((e: unknown) => {
      if (isNoMessage(e)) return undefined;
      throw e;
    });
    if (!m) return;
    yield m;
    seq = m.seq + 1;
  }
}

/** A recording's `ev` messages: sealed (records whose payload is in an archive, which must carry no data) and raw. */
export async function evMessages(nats: NatsClient, tenantId: string, recordingId: string): Promise<{ sealed: number; raw: number }> {
  const subject = recordingSubject(tenantId, recordingId, 'ev');
  const counts = { sealed: 0, raw: 0 };
  for await (const m of messagesOn(nats, subject)) {
    if (!m.header?.has(H.sealed)) counts.raw++;
    else if (m.data.length !== 0) throw new Error(`sealed record at ${m.seq} of ${subject} carries ${m.data.length} bytes`);
    else counts.sealed++;
  }
  return counts;
}
