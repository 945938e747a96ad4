// What one GET …/events read asks of JetStream, with the stream faked: the read's own headers pass
// decides between the archive's stored response and the merge, so no read looks up the last message
// first, and a sealed recording that must merge reads its headers once.
import { headers as natsHeaders, JsMsg } from 'nats';
import type { Archive } from './archive-format';
import type { MessageCounts, ResponseSource } from '../../domain/event-store';
import type { ArchiveStore } from './archive-store';
import type { EventDeleter } from './event-deleter';
import { orderBatches, planKey } from './event-order';
import { EventReader } from './event-reader';
import type { MessageScanner, ScanOptions } from './message-scan';
import type { RecordingMessages } from './recording-messages';
import { formatSealedRef } from './sealed-record';
import { H } from './subjects';

const payload = (b: number) => Buffer.from(JSON.stringify([{ type: 3, timestamp: 1000 + b, data: { b } }]));
const summary = (b: number) => JSON.stringify({ minTs: 1000 + b, bytes: payload(b).length });

/** Batch `b` at stream sequence `seq`: stored (payload) or a record of archive `archive`. */
function message(seq: number, b: number, archive?: string): JsMsg {
  const h = natsHeaders();
  h.set(H.batch, `batch-${b}`);
  h.set(H.summary, summary(b));
  if (archive) h.set(H.sealed, formatSealedRef({ a: archive, s: seq - 10, t: 0 }));
  return { seq, headers: h, data: archive ? new Uint8Array(0) : payload(b) } as unknown as JsMsg;
}

function reader(stream: JsMsg[]) {
  const calls = { counts: 0, last: 0, headerPasses: 0, payloadPasses: 0, archiveLoads: 0 };
  const counts: MessageCounts = { ev: stream.length, meta: 0, del: 0, kf: 0 };
  const messages = {
    counts: () => (calls.counts++, Promise.resolve(counts)),
    last: () => (calls.last++, Promise.resolve(undefined)),
    lastSeq: () => (calls.last++, Promise.resolve(undefined)),
  } as unknown as RecordingMessages;
  const scanner = {
    async *scan(_subject: string, o: ScanOptions) {
      if (o.headersOnly) calls.headerPasses++;
      else calls.payloadPasses++;
      yield* stream.filter((m) => m.seq >= o.startSeq);
    },
  } as unknown as MessageScanner;
  const deleter = { settle: (_t: string, _r: string, c: MessageCounts) => Promise.resolve(c) } as unknown as EventDeleter;
  // Archive A holds batches 0-2 and the response merged for them in that order.
  const plan = planKey(orderBatches([0, 1, 2].map((b) => ({ seq: b + 1, batch: `batch-${b}`, summary: summary(b) }))).batches);
  const archive = {
    payload: (batch: string) => payload(Number(batch.slice('batch-'.length))),
    response: (key: string) =>
      key === plan
        ? (async function* () {
            yield Buffer.from('stored');
          })()
        : undefined,
  } as unknown as Archive;
  const archives = { load: (name: string) => (calls.archiveLoads++, Promise.resolve(name === 'A' ? archive : undefined)) } as unknown as ArchiveStore;
  return { reader: new EventReader(messages, scanner, deleter, archives), calls };
}

async function bodyOf(source: ResponseSource): Promise<string> {
  const parts: string[] = [];
  if (source.stored) for await (const c of source.stored) parts.push(Buffer.from(c).toString());
  else for await (const run of source.runs) for (const e of run) parts.push(Buffer.from(e.json).toString());
  return parts.join('|');
}

describe('EventReader.readForResponse', () => {
  it('reads a recording not sealed with one count, a headers pass and a payload pass: no lookup of its last message', async () => {
    const { reader: r, calls } = reader([message(1, 0), message(2, 1), message(3, 2)]);
    const body = await bodyOf(await r.readForResponse('t', 'r', { mustExist: true }));
    expect(body.split('|')).toHaveLength(3);
    expect(calls).toEqual({ counts: 1, last: 0, headerPasses: 1, payloadPasses: 1, archiveLoads: 0 });
  });

  it("passes a sealed recording's stored response on after one headers pass", async () => {
    const { reader: r, calls } = reader([message(11, 0, 'A'), message(12, 1, 'A'), message(13, 2, 'A')]);
    expect(await bodyOf(await r.readForResponse('t', 'r'))).toBe('stored');
    expect(calls).toEqual({ counts: 1, last: 0, headerPasses: 1, payloadPasses: 0, archiveLoads: 1 });
  });

  it('merges a sealed recording with a late batch from the same one headers pass', async () => {
    const { reader: r, calls } = reader([message(11, 0, 'A'), message(12, 1, 'A'), message(13, 2, 'A'), message(14, 3)]);
    const body = await bodyOf(await r.readForResponse('t', 'r'));
    expect(body.split('|')).toHaveLength(4);
    expect(calls).toMatchObject({ counts: 1, last: 0, headerPasses: 1, payloadPasses: 1 });
  });

  it('merges a whole read of records whose plan is not the one the archive answered for', async () => {
    // Batches 0 and 1 only: not the plan the archive's response was merged by.
    const { reader: r, calls } = reader([message(11, 0, 'A'), message(12, 1, 'A')]);
    expect((await r.readForResponse('t', 'r')).stored).toBeUndefined();
    expect(calls).toMatchObject({ counts: 1, last: 0, headerPasses: 1, payloadPasses: 0, archiveLoads: 1 });
  });
});
