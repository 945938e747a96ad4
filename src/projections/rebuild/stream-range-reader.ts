// Reads the stream messages of a filter with sequence in [from, to], in batches, through an
// ephemeral consumer on the stream leader (headers only; payloads are loaded by the projection's
// body loader; see leader-consumer.ts for why the leader). The consumer is
// deleted at the end. An empty fetch ends the range only once the stream holds nothing more in it.
//
// The consumer acknowledges nothing (ack policy none), so the server never redelivers: a message it
// sent for a pull after that pull expired on the client (a busy server, a loaded machine) is gone
// from this consumer. Each delivery's consumer sequence is one more than the last one's, so a jump
// shows such a loss, and so does an empty pull while the stream still holds messages in the range;
// either way the read goes on from a new consumer starting right after the last message it got.
import type { NatsClient } from '../../infrastructure/nats/nats-connection';
import { leaderConsumer } from '../../infrastructure/nats/leader-consumer';
import { directGet } from '../../infrastructure/nats/direct-get';
import { toProjectionMessage } from '../js-message';
import { isNoMessage } from '../../infrastructure/nats/jetstream-errors';
import type { ProjectionMessage } from '../projection';

/** A pull that lost messages this many times in a row without getting any ends the read with an error. */
const MAX_FRUITLESS_REOPENS = 5;

export async function* readRange(
  nats: NatsClient,
  filterSubject: string,
  from: number,
  to: number,
  batch: number,
  expiresMs: number,
): AsyncGenerator<ProjectionMessage[]> {
  if (from > to) return;
  let last = from - 1;
  const open = () => leaderConsumer(nats, { filterSubject, headersOnly: true, startSeq: Math.max(1, last + 1) });
  let consumer = await open();
  let delivered = 0; // the consumer sequence of the last delivery taken from this consumer
  let fruitless = 0;
  try {
    for (;;) {
      const out: ProjectionMessage[] = [];
      let done = false;
      let lost = false;
      const it = await consumer.fetch({ max_messages: batch, expires: Math.max(1000, expiresMs) });
      for await (const m of it) {
        if (m.info.deliverySequence !== delivered + 1) {
          lost = true; // deliveries made for an earlier, expired pull never reached us
          break;
        }
        delivered = m.info.deliverySequence;
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
      if (!lost && out.length === 0 && !(await hasMore(nats, filterSubject, last + 1, to))) return;
      if (lost || out.length === 0) {
        fruitless = out.length === 0 ? fruitless + 1 : 0;
        if (fruitless > MAX_FRUITLESS_REOPENS) throw new Error(`reading ${filterSubject} from ${last + 1}: the stream holds messages no consumer delivers`);
        await consumer.delete().catch(() => undefined);
        consumer = await open();
        delivered = 0;
      } else {
        fruitless = 0;
      }
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
