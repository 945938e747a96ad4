// What one GET …/events read asks of JetStream, with the stream faked: a small recording's own headers
// pass decides between the archive's stored response and the merge (no lookup of its last message
// first); a large sealed one is answered from its first and last message and the count, with no
// headers pass; a sealed recording that must merge reads its headers once.
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

/** As a direct get answers it (StoredMsg: `header`, not `headers`). */
const stored = (m: JsMsg | undefined) => m && { seq: m.seq, header: m.headers, data: m.data };

/** `records`: the records archive A's seal published (ArchiveIndex.records), when they plan as its response. */
function reader(stream: JsMsg[], o: { batches?: number; records?: number; dels?: number } = {}) {
  const calls = { counts: 0, last: 0, first: 0, headerPasses: 0, payloadPasses: 0, archiveLoads: 0 };
  const counts: MessageCounts = { ev: stream.length, meta: 0, del: o.dels ?? 0, kf: 0 };
  const messages = {
    counts: () => (calls.counts++, Promise.resolve(counts)),
    last: () => (calls.last++, Promise.resolve(stored(stream[stream.length - 1]))),
    first: () => (calls.first++, Promise.resolve(stored(stream[0]))),
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
  // Archive A holds batches 0 to batches - 1 (3 unless told) and the response merged for them in that order.
  const ids = Array.from({ length: o.batches ?? 3 }, (_, b) => b);
  const plan = planKey(orderBatches(ids.map((b) => ({ seq: b + 1, batch: `batch-${b}`, summary: summary(b) }))).batches);
  const body = async function* () {
    yield Buffer.from('stored');
  };
  const archive = {
    payload: (batch: string) => payload(Number(batch.slice('batch-'.length))),
    response: (key: string) => (key === plan ? body() : undefined),
    responseOfRecords: (count: number) => (count === o.records ? body() : undefined),
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
    expect(calls).toEqual({ counts: 1, last: 0, first: 0, headerPasses: 1, payloadPasses: 1, archiveLoads: 0 });
  });

  it("passes a sealed recording's stored response on after one headers pass", async () => {
    const { reader: r, calls } = reader([message(11, 0, 'A'), message(12, 1, 'A'), message(13, 2, 'A')]);
    expect(await bodyOf(await r.readForResponse('t', 'r'))).toBe('stored');
    expect(calls).toEqual({ counts: 1, last: 0, first: 0, headerPasses: 1, payloadPasses: 0, archiveLoads: 1 });
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

  describe('a large recording (32 messages or more)', () => {
    const N = 40;
    const records = (from: number, archive = 'A') => Array.from({ length: N }, (_, b) => message(from + b, b, archive));

    it('is answered from its first and last message and the count when they are all records of one archive: no headers pass', async () => {
      const { reader: r, calls } = reader(records(11), { batches: N, records: N });
      expect(await bodyOf(await r.readForResponse('t', 'r'))).toBe('stored');
      expect(calls).toEqual({ counts: 1, last: 1, first: 1, headerPasses: 0, payloadPasses: 0, archiveLoads: 1 });
    });

    it('merges when an old message is still there (the seal is removing what its records replaced)', async () => {
      const { reader: r, calls } = reader([message(5, 0), ...records(11)], { batches: N, records: N });
      const body = await bodyOf(await r.readForResponse('t', 'r'));
      expect(body.split('|')).toHaveLength(N);
      expect(calls).toMatchObject({ last: 1, first: 1, headerPasses: 1, payloadPasses: 1 });
    });

    it("takes the headers pass's way when the count is not the archive's records (one of them gone)", async () => {
      const { reader: r, calls } = reader(records(11).slice(1), { batches: N, records: N });
      await bodyOf(await r.readForResponse('t', 'r'));
      expect(calls).toMatchObject({ first: 1, headerPasses: 1, payloadPasses: 1 });
    });

    it('merges a late batch after the records without looking at the first message', async () => {
      const { reader: r, calls } = reader([...records(11), message(60, N)], { batches: N, records: N });
      const body = await bodyOf(await r.readForResponse('t', 'r'));
      expect(body.split('|')).toHaveLength(N + 1);
      expect(calls).toMatchObject({ last: 1, first: 0, headerPasses: 1, payloadPasses: 1 });
    });

    it('makes the headers pass for a recording with a deletion marker', async () => {
      const { reader: r, calls } = reader(records(11), { batches: N, records: N, dels: 1 });
      await bodyOf(await r.readForResponse('t', 'r'));
      expect(calls).toMatchObject({ first: 0, headerPasses: 1 });
    });

    it('never uses the archive for a window or a live feed', async () => {
      const { reader: r, calls } = reader(records(11), { batches: N, records: N });
      await bodyOf(await r.readForResponse('t', 'r', { seqs: { after: 0, upTo: 1000 } }));
      expect(calls).toMatchObject({ last: 0, first: 0, headerPasses: 1 });
    });
  });
});
