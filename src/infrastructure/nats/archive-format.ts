// The archive of a sealed recording (docs/archives.md). Version 2: the body a full read answers
// (GET …/events: the merged events, each with its originalTimestamp), then what else the stored
// batches hold (metadata events, repeats), packed into brotli blocks of about BLOCK_BYTES; then an
// index (gzip JSON) rebuilding each batch's payload from parts of that body, and a 16-byte trailer.
// Version 1 (still read): the batches' payloads in plan order instead of the response. Pure: encode,
// decode, verify; no I/O.
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompressSync, brotliDecompress, brotliDecompressSync, constants, gunzip, gunzipSync, gzipSync } from 'node:zlib';
import { listSpans } from './raw-events';
import { withoutOriginalTimestamp } from './recording-events.json';

/** Raw bytes per block: big enough for the ratio, small enough that one batch costs one block's inflate. */
export const BLOCK_BYTES = 256 * 1024;
/** Brotli quality of the blocks: measured on a real rrweb recording 5.6 % of its JSON, where gzip 6 gave 9.1 % (docs/archives.md). */
export const BROTLI_QUALITY = 5;
/** The index is small: gzip. */
const GZIP_LEVEL = 6;
type Codec = 'br' | 'gzip';
const compress = (b: Buffer): Buffer =>
  brotliCompressSync(b, { params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: b.length } });
const inflate = (codec: Codec, b: Buffer): Buffer => (codec === 'br' ? brotliDecompressSync(b) : gunzipSync(b));
/**
 * In libuv's thread pool: a full read inflates the next block while the event loop writes this one.
 * One output chunk of the block's size: the default 16 KiB made a thread-pool round trip per chunk,
 * several times slower than inflating on the event loop.
 */
const brotliAsync = promisify(brotliDecompress);
/**
 * Blocks a full read inflates at once (at most this many times BLOCK_BYTES held): one ahead left a
 * core idle; measured on 2 cores, brotli blocks of rrweb JSON inflated at 240 MB/s one at a time,
 * 630 two at a time, 670 three (libuv's pool has four threads).
 */
const INFLATE_AHEAD = 3;
const gunzipAsync = promisify(gunzip);
const inflateAsync = (codec: Codec, b: Buffer, rlen: number): Promise<Buffer> =>
  (codec === 'br' ? brotliAsync : gunzipAsync)(b, { chunkSize: Math.max(rlen, 1024) });
const MAGIC = 'TDA1';
const TRAILER = 16;
const OPEN = Buffer.from('[');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']');

export interface ArchivedBatch {
  /** Td-Batch id. */
  id: string;
  /** The batch's payload (a JSON array of events), its chunks joined. */
  payload: Uint8Array;
  /** Time span from its summary (absent: unknown); with the parts, the time → position index. */
  minTs?: number;
  maxTs?: number;
}

/** Where a batch's events are: a range of the response (`response`) or of its own payload (`payload`). */
export interface Piece {
  from: 'response' | 'payload';
  off: number;
  len: number;
}

/** What a full read answers for the batches (archive-response.ts), and where each batch's events are in it. */
export interface ArchiveResponse {
  /** The GET …/events body. */
  bytes: Buffer;
  /** Key of the read plan it was merged by: a read answers with it only when its own plan has that key. */
  plan: string;
  /** Per batch, in order: its events' pieces, in its payload's order; null when its payload is not a plain JSON array. */
  pieces: (Piece[] | null)[];
}

/**
 * A part of a batch's payload, as [kind, offset, length] in the archive's body: 0, events of the
 * response (each without its originalTimestamp); 1, events as stored; 2, the whole payload as stored.
 * A payload is `[` + its parts joined by commas + `]`, or its one part of kind 2.
 */
export type Part = [0 | 1 | 2, number, number];

interface EntryV1 {
  id: string;
  /** Block number, offset and length of the payload inside the block's raw bytes. */
  block: number;
  off: number;
  len: number;
  minTs?: number;
  maxTs?: number;
}

interface EntryV2 {
  id: string;
  parts: Part[];
  minTs?: number;
  maxTs?: number;
}

export type ArchiveIndexEntry = EntryV1 | EntryV2;

export interface ArchiveIndex {
  v: 1 | 2;
  /** Codec of the blocks (absent: gzip). */
  codec?: Codec;
  tenantId: string;
  recordingId: string;
  /** Stream sequence of the last `ev` message the archive was made from (its generation). */
  lastSeq: number;
  /**
   * Sealed batch records its seal publishes (one chain), when they plan as `response` was merged:
   * a recording whose `ev` messages are that many, the first and the last of them this archive's
   * records, is exactly those records (EventReader.wholeArchive). Absent: the read's headers pass decides.
   */
  records?: number;
  batches: ArchiveIndexEntry[];
  /** Byte offset in the object, compressed and raw length of each block. */
  blocks: { off: number; clen: number; rlen: number }[];
  /** Version 2: the response at the start of the body: its length, sha256 and plan key. */
  response?: { len: number; sha256: string; plan: string };
  /** Sum of the payloads' lengths, and sha256 over them in order: the verification after a write. */
  rawBytes: number;
  sha256: string;
}

/** A batch's payload from its parts; `read` gives a part's bytes. */
function rebuild(parts: Part[], read: (p: Part) => Uint8Array): Buffer {
  if (parts.length === 1 && parts[0][0] === 2) return Buffer.from(read(parts[0]));
  const out: Uint8Array[] = [OPEN];
  for (const p of parts) {
    if (out.length > 1) out.push(COMMA);
    const bytes = read(p);
    if (p[0] !== 0) {
      out.push(bytes);
      continue;
    }
    const spans = listSpans(bytes);
    if (!spans || spans.length === 0) throw new ArchiveFormatError('a part of the response holds no events');
    spans.forEach(([s, e], k) => {
      if (k > 0) out.push(COMMA);
      out.push(withoutOriginalTimestamp(bytes.subarray(s, e)));
    });
  }
  out.push(CLOSE);
  return Buffer.concat(out);
}

/** A batch's parts, body offsets relative to the response and `extra` (its bytes appended there); the whole payload when its pieces do not rebuild it. */
function partsOf(payload: Uint8Array, pieces: Piece[] | null, response: Buffer, extraAt: number): { parts: Part[]; extra: Uint8Array[] } {
  const whole = { parts: [[2, extraAt, payload.length]] as Part[], extra: [payload] };
  if (!pieces) return whole;
  const local: Part[] = pieces.map((p) => [p.from === 'response' ? 0 : 1, p.off, p.len]);
  let same = false;
  try {
    same = rebuild(local, ([k, off, len]) => (k === 0 ? response : payload).subarray(off, off + len)).equals(payload);
  } catch {
    /* not rebuilt: stored whole */
  }
  if (!same) return whole;
  const extra: Uint8Array[] = [];
  let at = extraAt;
  const parts = local.map(([k, off, len]): Part => {
    if (k === 0) return [0, off, len];
    extra.push(payload.subarray(off, off + len));
    at += len;
    return [1, at - len, len];
  });
  return { parts, extra };
}

export function encodeArchive(
  head: Pick<ArchiveIndex, 'tenantId' | 'recordingId' | 'lastSeq' | 'records'>,
  batches: readonly ArchivedBatch[],
  response: ArchiveResponse,
): { bytes: Buffer; index: ArchiveIndex } {
  const hash = createHash('sha256');
  const respLen = response.bytes.length;
  const sha256 = createHash('sha256').update(response.bytes).digest('hex');
  const index: ArchiveIndex = {
    v: 2,
    codec: 'br',
    ...head,
    batches: [],
    blocks: [],
    response: { len: respLen, sha256, plan: response.plan },
    rawBytes: 0,
    sha256: '',
  };
  const body: Uint8Array[] = [response.bytes];
  let bodyLen = respLen;
  batches.forEach((b, i) => {
    const { parts, extra } = partsOf(b.payload, response.pieces[i], response.bytes, bodyLen);
    for (const x of extra) bodyLen += x.length;
    body.push(...extra);
    index.batches.push({ id: b.id, parts, minTs: b.minTs, maxTs: b.maxTs });
    hash.update(b.payload);
    index.rawBytes += b.payload.length;
  });
  index.sha256 = hash.digest('hex');
  const all = Buffer.concat(body);
  const blocks: Buffer[] = [];
  let off = 0;
  for (let at = 0; at < all.length; at += BLOCK_BYTES) {
    const raw = all.subarray(at, at + BLOCK_BYTES);
    const z = compress(raw);
    index.blocks.push({ off, clen: z.length, rlen: raw.length });
    blocks.push(z);
    off += z.length;
  }
  const z = gzipSync(Buffer.from(JSON.stringify(index)), { level: GZIP_LEVEL });
  const trailer = Buffer.alloc(TRAILER);
  trailer.write(MAGIC, 0, 'ascii');
  trailer.writeUInt32BE(off, 4);
  trailer.writeUInt32BE(z.length, 8);
  return { bytes: Buffer.concat([...blocks, z, trailer]), index };
}

export class ArchiveFormatError extends Error {}

/** A decoded archive: its index and each batch's payload, inflated one block at a time on demand. */
export class Archive {
  readonly index: ArchiveIndex;
  private readonly byId = new Map<string, ArchiveIndexEntry>();
  private readonly inflated = new Map<number, Buffer>();
  /** Offset of each block in the body (the blocks' raw bytes one after another). */
  private readonly starts: number[] = [];

  constructor(private readonly bytes: Uint8Array) {
    const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (buf.length < TRAILER || buf.toString('ascii', buf.length - TRAILER, buf.length - TRAILER + 4) !== MAGIC)
      throw new ArchiveFormatError('not a recording archive');
    const at = buf.readUInt32BE(buf.length - TRAILER + 4);
    const len = buf.readUInt32BE(buf.length - TRAILER + 8);
    if (at + len + TRAILER !== buf.length) throw new ArchiveFormatError('archive trailer does not match its length');
    this.index = JSON.parse(gunzipSync(buf.subarray(at, at + len)).toString('utf8')) as ArchiveIndex;
    for (const e of this.index.batches) if (!this.byId.has(e.id)) this.byId.set(e.id, e);
    let start = 0;
    for (const b of this.index.blocks) {
      this.starts.push(start);
      start += b.rlen;
    }
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
    return e && this.payloadOf(e);
  }

  /** Every payload in order (the verification reads them all). */
  *payloads(): Generator<{ id: string; payload: Buffer }> {
    for (const e of this.index.batches) yield { id: e.id, payload: this.payloadOf(e) };
  }

  /**
   * The GET …/events body of a full read, block by block, when the archive holds it for a read
   * planned as `plan` (planKey); undefined for another plan or a version 1 archive.
   */
  response(plan: string): AsyncGenerator<Buffer> | undefined {
    const r = this.index.response;
    return r?.plan === plan ? this.body(r.len) : undefined;
  }

  /**
   * The same body for a recording whose `ev` messages are `count` of this archive's records, the first
   * and the last among them (ArchiveIndex.records); undefined when the count is not its records'.
   */
  responseOfRecords(count: number): AsyncGenerator<Buffer> | undefined {
    const r = this.index.response;
    return r && this.index.records === count ? this.body(r.len) : undefined;
  }

  /**
   * The first `len` bytes of the body, one inflated block at a time (not cached: a full read passes
   * once), the next INFLATE_AHEAD blocks inflating in the thread pool while this one is consumed.
   */
  private async *body(len: number): AsyncGenerator<Buffer> {
    const count = this.starts.filter((s) => s < len).length;
    const ahead: Promise<Buffer>[] = [];
    let queued = 0;
    const fill = () => {
      while (queued < count && ahead.length < INFLATE_AHEAD) ahead.push(this.inflateAsync(queued++));
    };
    fill();
    for (let n = 0; n < count; n++) {
      const b = await ahead.shift()!;
      fill();
      yield b.subarray(0, len - this.starts[n]);
    }
  }

  private payloadOf(e: ArchiveIndexEntry): Buffer {
    if ('parts' in e) return rebuild(e.parts, ([, off, len]) => this.range(off, len));
    return this.range(this.starts[e.block] + e.off, e.len);
  }

  /** Bytes [off, off + len) of the body, across blocks. */
  private range(off: number, len: number): Buffer {
    let n = this.starts.length - 1;
    while (n > 0 && this.starts[n] > off) n--;
    const parts: Buffer[] = [];
    for (let end = off + len; off < end; n++) {
      if (n >= this.starts.length) throw new ArchiveFormatError(`bytes ${off}..${end} are past the archive's blocks`);
      const b = this.block(n);
      const from = off - this.starts[n];
      const part = b.subarray(from, Math.min(b.length, end - this.starts[n]));
      parts.push(part);
      off += part.length;
    }
    return parts.length === 1 ? parts[0] : Buffer.concat(parts);
  }

  private block(n: number): Buffer {
    let b = this.inflated.get(n);
    if (!b) {
      b = this.inflate(n);
      // Reads go forward: keep only the last few blocks.
      if (this.inflated.size >= 4) this.inflated.delete(this.inflated.keys().next().value as number);
      this.inflated.set(n, b);
    }
    return b;
  }

  private inflate(n: number): Buffer {
    return this.checked(n, inflate(this.index.codec ?? 'gzip', this.compressed(n)));
  }

  private async inflateAsync(n: number): Promise<Buffer> {
    return this.checked(n, await inflateAsync(this.index.codec ?? 'gzip', this.compressed(n), this.index.blocks[n].rlen));
  }

  private compressed(n: number): Buffer {
    const { off, clen } = this.index.blocks[n];
    return Buffer.from(this.bytes.buffer, this.bytes.byteOffset + off, clen);
  }

  private checked(n: number, b: Buffer): Buffer {
    if (b.length !== this.index.blocks[n].rlen) throw new ArchiveFormatError(`block ${n} inflates to ${b.length} bytes, indexed ${this.index.blocks[n].rlen}`);
    return b;
  }
}

/** Reads every block back and checks batch count, byte count and checksum (and the response's) against what was written. */
export async function verifyArchive(bytes: Uint8Array, expect: ArchiveIndex): Promise<void> {
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
  const r = expect.response;
  if (!r) return;
  const got = createHash('sha256');
  for await (const b of a.response(r.plan) ?? []) got.update(b);
  if (got.digest('hex') !== r.sha256) throw new ArchiveFormatError('archive read back differs: its response is not the one written');
}
