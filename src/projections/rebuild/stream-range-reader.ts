// Reads the stream messages of a filter with sequence in [from, to], in batches, through an
// ephemeral consumer on the stream leader (headers only; payloads are loaded by the projection's
// body loader; see leader-consumer.ts for why the leader). The consumer is
// deleted at the end. An empty fetch ends the range only once the stream holds nothing more in it.
import type { NatsClient } from '../../infrastructure/nats/nats-connection';
import { leaderConsumer } from '../../infrastructure/nats/leader-consumer';
import { directGet } from '../../infrastructure/nats/direct-get';
import { toProjectionMessage } from '../js-message';
import { isNoMessage } from '../nats-errors';
import type { ProjectionMessage } from '../projection';

export async function* readRange(
  nats: NatsClient,
  filterSubject: string,
  from: number,
  to: number,
  batch: number,
  expiresMs: number,
): AsyncGenerator<ProjectionMessage[]> {
  if (from > to) return;
  const consumer = await leaderConsumer(nats, { filterSubject, headersOnly: true, startSeq: Math.max(1, from) });
  let last = from - 1;
  try {
    for (;;) {
      const out: ProjectionMessage[] = [];
      let done = false;
      const it = await consumer.fetch({ max_messages: batch, expires: Math.max(1000, expiresMs) });
      for await (const m of it) {
        if (m.seq <= to) {
          out.push(toProjectionMessage(m));
          last = m.seq;
        }
        // Nothing to wait for (no acks on this consumer): leave the fetch at the range's end.
        if (m.seq >= to || m.info.pending === 0) {
          done = true;
          break;
        }
      }
      if (out.length > 0) yield out;
      if (done || last >= to) return;
      if (out.length === 0 && !(await hasMore(nats, filterSubject, last + 1, to))) return;
    }
  } finally {
    await consumer.delete().catch(() => undefined);
  }
}

async function hasMore(nats: NatsClient, filterSubject: string, seq: number, to: number): Promise<boolean> {
  try {
    const next = await directGet(nats, { seq, next_by_subj: filterSubject });
    return next.seq <= to;
  } catch (e) {
    if (isNoMessage(e)) return false;
    throw e;
  }
}
