import { Archive, ArchiveFormatError, BLOCK_BYTES, encodeArchive, verifyArchive } from './archive-format';

const head = { tenantId: 't', recordingId: 'r', lastSeq: 42 };
const payload = (i: number, n: number) => Buffer.from(JSON.stringify([{ type: 3, timestamp: 1000 + i, data: { pad: 'x'.repeat(n) } }]));

describe('recording archive format', () => {
  const batches = Array.from({ length: 40 }, (_, i) => ({
    id: `b${i}`,
    payload: payload(i, i === 7 ? BLOCK_BYTES * 2 : 20_000),
    minTs: 1000 + i,
    maxTs: 1000 + i,
  }));
  const { bytes, index } = encodeArchive(head, batches);

  it('gives back every batch by id, byte for byte, across blocks (one batch bigger than a block)', () => {
    const a = new Archive(bytes);
    expect(a.index.blocks.length).toBeGreaterThan(2);
    for (const b of batches) expect(a.payload(b.id)?.equals(b.payload)).toBe(true);
    expect(a.payload('missing')).toBeUndefined();
    expect([...a.payloads()].map((p) => p.id)).toEqual(batches.map((b) => b.id));
    expect(a.index.batches[3]).toMatchObject({ id: 'b3', minTs: 1003, maxTs: 1003 });
    expect(() => verifyArchive(bytes, index)).not.toThrow();
  });

  it('compresses repetitive JSON well', () => {
    expect(bytes.length).toBeLessThan(index.rawBytes / 20);
  });

  it('fails verification on a changed byte, a cut object or another archive', () => {
    const changed = Buffer.from(bytes);
    changed[10] ^= 0xff;
    expect(() => verifyArchive(changed, index)).toThrow();
    expect(() => new Archive(bytes.subarray(0, bytes.length - 1))).toThrow(ArchiveFormatError);
    const other = encodeArchive(head, batches.slice(1)).bytes;
    expect(() => verifyArchive(other, index)).toThrow(ArchiveFormatError);
  });

  it('encodes a recording without batches', () => {
    const empty = encodeArchive(head, []);
    expect(new Archive(empty.bytes).index.batches).toEqual([]);
    expect(() => verifyArchive(empty.bytes, empty.index)).not.toThrow();
  });
});
