// The rebuild's range reader against a nats-server of its own, in a process too busy to take a
// pull's answer before the pull's own timer ends it. Its consumer acknowledges nothing, so what the
// server sends for a pull the client already gave up on is never sent again: a rebuild run while the
// stream was busy replayed fewer messages than the stream held, said so in a warning and swapped its
// short tables in anyway (found by an operator audit: up to 28 % of a loaded stream's messages
// missing from the listing after a rebuild).
import { randomUUID } from 'node:crypto';
import { EVENTS_STREAM, recordingSubject } from '../../src/infrastructure/nats/subjects';
import { readRange } from '../../src/projections/rebuild/stream-range-reader';
import { useOwnNats } from '../harness/own-nats';

jest.setTimeout(90_000);

const own = useOwnNats('range-loss');

describe('readRange', () => {
  it('reads every message of the range when the server answered a pull the client gave up on', async () => {
    const subject = recordingSubject('t_range', randomUUID(), 'ev');
    const total = 3000;
    const pubs = [];
    for (let i = 0; i < total; i++) pubs.push(own.nats.js.publish(subject, new TextEncoder().encode(`m${i}`)));
    await Promise.all(pubs);
    const to = (await own.nats.jsm.streams.info(EVENTS_STREAM)).state.last_seq;

    const seqs: number[] = [];
    const batches = readRange(own.nats, 'td.rec.>', 1, to, 1000, 1000);
    const first = await batches.next();
    seqs.push(...(first.value ?? []).map((m: { seq: number }) => m.seq));
    // The next pull goes out; while the server answers it, this process is too busy to read the
    // answer for longer than the pull's expiry (a loaded 2-core machine): the pull's timer fires
    // before the messages already sent for it are read, and they are dropped.
    const second = batches.next();
    await new Promise((r) => setImmediate(r));
    const until = Date.now() + 1500;
    while (Date.now() < until); // busy, as a loaded process is
    for (let r = await second; !r.done; r = await batches.next()) seqs.push(...r.value.map((m) => m.seq));

    expect(seqs).toHaveLength(total);
    expect(new Set(seqs).size).toBe(total);
    expect(seqs[seqs.length - 1]).toBe(to);
  });
});
