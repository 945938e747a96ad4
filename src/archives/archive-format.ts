// The archive of a sealed recording (docs/archives.md): its batches' payloads, in the order a read
// plans them (stream order, each batch once), packed into brotli blocks of about BLOCK_BYTES, then an
// index (gzip JSON) and a 16-byte trailer. Pure: encode, decode, verify; no I/O.
import { createHash } from 'node:crypto';
import { brotliCompressSync, brotliDecompressSync, constants, gunzipSync, gzipSync } from 'node:zlib';

/** Raw bytes per gzip block: big enough for the ratio, small enough that one batch costs one block's inflate. */
export const BLOCK_BYTES = 256 * 1024;
/** Brotli quality of the blocks: measured on a real rrweb recording 5.6 % of its JSON, where gzip 6 gave 9.1 % (docs/archives.md). */
export const BROTLI_QUALITY = 5;
/** The index is small: gzip. */
const GZIP_LEVEL = 6;
type Codec = 'br' | 'gzip';
const compress = (b: Buffer): Buffer =>
  brotliCompressSync(b, { params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: b.length } });
const inflate = (codec: Codec, b: Buffer): Buffer => (codec === 'br' ? brotliDecompressSync(b) : gunzipSync(b));
const MAGIC = 'TDA1';
const TRAILER = 16;

export interface ArchivedBatch {
  /** Td-Batch id. */
  id: string;
  /** The batch's payload (a JSON array of events), its chunks joined. */
  payload: Uint8Array;
  /** Time span from its summary (absent: unknown); with `pos`, the time → position index. */
  minTs?: number;
  maxTs?: number;
}

export interface ArchiveIndexEntry {
  id: string;
  /** Block number, offset and length of the payload inside the block's raw bytes. */
  block: number;
  off: number;
  len: number;
  minTs?: number;
  maxTs?: number;
}

export interface ArchiveIndex {
  v: 1;
  /** Codec of the blocks (absent: gzip). */
  codec?: Codec;
  tenantId: string;
  recordingId: string;
  /** Stream sequence of the last `ev` message the archive was made from (its generation). */
  lastSeq: number;
  batches: ArchiveIndexEntry[];
  /** Byte offset in the object, compressed and raw length of each block. */
  blocks: { off: number; clen: number; rlen: number }[];
  /** Sum of the payloads' lengths, and sha256 over them in order: the verification after a write. */
  rawBytes: number;
  sha256: string;
}

export function encodeArchive(
  head: Pick<ArchiveIndex, 'tenantId' | 'recordingId' | 'lastSeq'>,
  batches: readonly ArchivedBatch[],
): { bytes: Buffer; index: ArchiveIndex } {
  const hash = createHash('sha256');
  const parts: Buffer[] = [];
  const index: ArchiveIndex = { v: 1, codec: 'br', ...head, batches: [], blocks: [], rawBytes: 0, sha256: '' };
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  let off = 0;
  const flush = () => {
    if (pending.length === 0) return;
    const z = compress(Buffer.concat(pending));
    index.blocks.push({ off, clen: z.length, rlen: pendingBytes });
    parts.push(z);
    off += z.length;
    pending = [];
    pendingBytes = 0;
  };
  for (const b of batches) {
    if (pendingBytes > 0 && pendingBytes + b.payload.length > BLOCK_BYTES) flush();
    index.batches.push({ id: b.id, block: index.blocks.length, off: pendingBytes, len: b.payload.length, minTs: b.minTs, maxTs: b.maxTs });
    pending.push(b.payload);
    pendingBytes += b.payload.length;
    hash.update(b.payload);
    index.rawBytes += b.payload.length;
  }
  flush();
  index.sha256 = hash.digest('hex');
  const z = gzipSync(Buffer.from(JSON.stringify(index)), { level: GZIP_LEVEL });
  const trailer = Buffer.alloc(TRAILER);
  trailer.write(MAGIC, 0, 'ascii');
  trailer.writeUInt32BE(off, 4);
  trailer.writeUInt32BE(z.length, 8);
  return { bytes: Buffer.concat([...parts, z, trailer]), index };
}

export class ArchiveFormatError extends Error {}

/** A decoded archive: its index and each batch's payload, inflated one block at a time on demand. */
export class Archive {
  readonly index: ArchiveIndex;
  private readonly byId = new Map<string, ArchiveIndexEntry>();
  private readonly inflated = new Map<number, Buffer>();

  constructor(private readonly bytes: Uint8Array) {
    const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (buf.length < TRAILER || buf.toString('ascii', buf.length - TRAILER, buf.length - TRAILER + 4) !== MAGIC)
      throw new ArchiveFormatError('not a recording archive');
    const at = buf.readUInt32BE(buf.length - TRAILER + 4);
    const len = buf.readUInt32BE(buf.length - TRAILER + 8);
    if (at + len + TRAILER !== buf.length) throw new ArchiveFormatError('archive trailer does not match its length');
    this.index = JSON.parse(gunzipSync(buf.subarray(at, at + len)).toString('utf8')) as ArchiveIndex;
    for (const e of this.index.batches) if (!this.byId.has(e.id)) this.byId.set(e.id, e);
  }

  /** Compressed size of the object. */
  get size(): number {
    return this.bytes.byteLength;
  }

  has(batchId: string): boolean {
    return this.byId.has(batchId);
  }

  /** The payload of a batch, undefined when the archive does not hold it. */
  payload(batchId: string): Buffer | undefined {
    const e = this.byId.get(batchId);
    if (!e) return undefined;
    return this.block(e.block).subarray(e.off, e.off + e.len);
  }

  /** Every payload in order (the verification reads them all). */
  *payloads(): Generator<{ id: string; payload: Buffer }> {
    for (const e of this.index.batches) yield { id: e.id, payload: this.block(e.block).subarray(e.off, e.off + e.len) };
  }

  private block(n: number): Buffer {
    let b = this.inflated.get(n);
    if (!b) {
      const { off, clen, rlen } = this.index.blocks[n];
      const buf = Buffer.from(this.bytes.buffer, this.bytes.byteOffset, this.bytes.byteLength);
      b = inflate(this.index.codec ?? 'gzip', buf.subarray(off, off + clen));
      if (b.length !== rlen) throw new ArchiveFormatError(`block ${n} inflates to ${b.length} bytes, indexed ${rlen}`);
      // Reads go forward: keep only the last few blocks.
      if (this.inflated.size >= 4) this.inflated.delete(this.inflated.keys().next().value as number);
      this.inflated.set(n, b);
    }
    return b;
  }
}

/** Reads every block back and checks batch count, byte count and checksum against what was written. */
export function verifyArchive(bytes: Uint8Array, expect: ArchiveIndex): void {
  const a = new Archive(bytes);
  const hash = createHash('sha256');
  let n = 0;
  let raw = 0;
  for (const { payload } of a.payloads()) {
    hash.update(payload);
    raw += payload.length;
    n++;
  }
  const sha = hash.digest('hex');
  if (n !== expect.batches.length || raw !== expect.rawBytes || sha !== expect.sha256 || a.index.sha256 !== expect.sha256)
    throw new ArchiveFormatError(
      `archive read back differs: ${n} batches / ${raw} bytes / ${sha}, wrote ${expect.batches.length} / ${expect.rawBytes} / ${expect.sha256}`,
    );
}
