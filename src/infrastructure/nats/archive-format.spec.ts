import { planKey, TimestampMerger } from './event-order';
import { rawEvents } from './raw-events';
import type { RawEvent } from '../../domain/event-store';
import { rawEventsJson } from './recording-events.json';
import { Archive, ArchiveFormatError, BLOCK_BYTES, encodeArchive, verifyArchive } from './archive-format';
import { archiveResponse, ResponseBatch } from './archive-response';

const head = { tenantId: 't', recordingId: 'r', lastSeq: 42 };
const json = (events: unknown[]) => Buffer.from(JSON.stringify(events));
const ev = (ts: number, extra: Record<string, unknown> = {}) => ({ type: 3, timestamp: ts, data: { source: 1, ...extra } });

/** What a read merges from the batches (EventReader.readRaw, then the body's writer): the oracle. */
function mergedBody(batches: readonly ResponseBatch[]): Buffer {
  const merger = new TimestampMerger<RawEvent>(() => false);
  const out: RawEvent[] = [];
  for (const b of batches) out.push(...merger.take(rawEvents(b.payload), b.releaseBelow));
  out.push(...merger.drainAll());
  return rawEventsJson(out);
}

/** Batches with their time span, and release bounds as orderBatches gives them from it. */
function planned(payloads: Buffer[]): (ResponseBatch & { minTs: number; maxTs: number })[] {
  const times = payloads.map((p) => (JSON.parse(p.toString()) as { timestamp: number }[]).map((e) => e.timestamp));
  const mins = times.map((ts) => Math.min(...ts));
  return payloads.map((payload, i) => ({
    id: `b${i}`,
    payload,
    minTs: mins[i],
    maxTs: Math.max(...times[i]),
    releaseBelow: Math.min(Number.POSITIVE_INFINITY, ...mins.slice(i + 1)),
  }));
}

const encode = (batches: ResponseBatch[]) => encodeArchive(head, batches, archiveResponse(batches));
async function body(a: Archive, batches: ResponseBatch[]): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const b of a.response(planKey(batches.map((b) => ({ batch: b.id, releaseBelow: b.releaseBelow })))) ?? []) parts.push(b);
  return Buffer.concat(parts);
}

describe('recording archive format', () => {
  const big = planned(Array.from({ length: 40 }, (_, i) => json([ev(1000 + i, { pad: 'x'.repeat(i === 7 ? BLOCK_BYTES * 2 : 20_000) })])));
  const { bytes, index } = encode(big);

  it('gives back every batch by id, byte for byte, across blocks (one batch bigger than a block)', async () => {
    const a = new Archive(bytes);
    expect(a.index.blocks.length).toBeGreaterThan(2);
    for (const b of big) expect(a.payload(b.id)?.equals(b.payload)).toBe(true);
    expect(a.payload('missing')).toBeUndefined();
    expect([...a.payloads()].map((p) => p.id)).toEqual(big.map((b) => b.id));
    expect(a.index.batches[3]).toMatchObject({ id: 'b3', minTs: 1003, maxTs: 1003 });
    await expect(verifyArchive(bytes, index)).resolves.toBeUndefined();
  });

  it('holds the body of a full read, passed on only for the plan it was merged by', async () => {
    const a = new Archive(bytes);
    expect((await body(a, big)).equals(mergedBody(big))).toBe(true);
    expect(a.response(planKey([{ batch: 'b0', releaseBelow: 1 }]))).toBeUndefined();
  });

  it('rebuilds batches the response reorders, drops from or repeats, and stores odd payloads whole', async () => {
    const meta = { type: 5, timestamp: 1000, data: { tag: 'recording-meta', payload: { a: '1' } } };
    const batches = planned([
      json([meta, ev(1000), ev(1003, { nested: { originalTimestamp: 5 } })]),
      // Overlaps the first: its events interleave with it.
      json([ev(1001), ev(1002), ev(1004)]),
      // A repeated sequenceId at one timestamp: the read drops the second.
      json([{ ...ev(1005), sequenceId: 1 }, { ...ev(1005), sequenceId: 1 }, ev(1006)]),
      // Whitespace, and an originalTimestamp key of its own (the JSON.parse path): kept whole.
      Buffer.from('[ {"type":3,"timestamp":1007,"data":{}} ]'),
      json([{ ...ev(1008), originalTimestamp: 1 }]),
      json([]),
    ]);
    const enc = encode(batches);
    const a = new Archive(enc.bytes);
    for (const b of batches) expect(a.payload(b.id)?.toString()).toBe(b.payload.toString());
    const kinds = a.index.batches.map((e) => ('parts' in e ? e.parts.map((p) => p[0]) : []));
    expect(kinds.slice(0, 4)).toEqual([[1, 0, 0], [0, 0], [0, 1, 0], [2]]);
    expect((await body(a, batches)).toString()).toBe(mergedBody(batches).toString());
    await expect(verifyArchive(enc.bytes, enc.index)).resolves.toBeUndefined();
  });

  it('compresses repetitive JSON well', async () => {
    expect(bytes.length).toBeLessThan(index.rawBytes / 20);
  });

  it('fails verification on a changed byte, a cut object or another archive', async () => {
    const changed = Buffer.from(bytes);
    changed[10] ^= 0xff;
    await expect(verifyArchive(changed, index)).rejects.toThrow();
    expect(() => new Archive(bytes.subarray(0, bytes.length - 1))).toThrow(ArchiveFormatError);
    const other = encode(big.slice(1)).bytes;
    await expect(verifyArchive(other, index)).rejects.toThrow(ArchiveFormatError);
  });

  it('encodes a recording without batches', async () => {
    const empty = encode([]);
    expect(new Archive(empty.bytes).index.batches).toEqual([]);
    expect((await body(new Archive(empty.bytes), [])).toString()).toBe('[]');
    await expect(verifyArchive(empty.bytes, empty.index)).resolves.toBeUndefined();
  });

  it('reads version 1 archives (batch payloads, no response)', async () => {
    // Written by the version 1 encoder: three batches [{"type":3,"timestamp":100i,"data":{"source":1,"pad":"x"×50}}].
    const v1 = Buffer.from(
      'G0MBAAT+2zntb77l2P60yiDMREqJB9zEkybsiGzZwAZcOOjymNJDdjGKxmqA3kjDcikXPfY4q3bkxiwNcRPyf+57cbYCH4sIAAAAAAAAA22QvW7DMAyE3+VmDpIsy7LGbp3TrchA/TVGHRu1haZF4Hcv7NZogGTikbj7gOMVn3CSEMaYAhz8BEJJAw/lOcKhgDClME6xG962y2roeS6H9AHXEDyXcEoz3OsV3WrwAgTfj+EdThDGnLfZpwFOCks4d8PLvGohCGf+2peFdoK8J2zJRwx5y5D/DHXPUNI8ZqhbhlqOf8nfUnuBsCVNS5g2VSm9Oie+PH2X9QGV0oT5xKo2cNC2YhuFFZmTySEZ5XNgjrGujLIp5rZubON9bnTQbcy60VpIFll72UpRYfkBoWcelJwBAABUREExAAAARQAAAPIAAAAA',
      'base64',
    );
    const a = new Archive(v1);
    expect(a.index.v).toBe(1);
    for (const i of [0, 1, 2])
      expect(a.payload(`b${i}`)?.toString()).toBe(JSON.stringify([{ type: 3, timestamp: 1000 + i, data: { source: 1, pad: 'x'.repeat(50) } }]));
    expect(a.response(planKey([]))).toBeUndefined();
  });
});
