// Content codings of ingested bytes: an HTTP body's Content-Encoding and a WebSocket's
// `contentEncoding` query parameter (rrweb Cloud documents gzip, br and zstd for it) name one of
// these, decoded by Node's own zlib with a bound on the decoded size, so a small bomb costs nothing.
import * as zlib from 'node:zlib';
import { AppError } from './app-error';

type Decoder = (buf: Buffer, opts: { maxOutputLength: number }) => Buffer;

/** zstd is in Node's zlib from 22.15 / 23.8; on older runtimes the coding is refused by name. */
const zstd = (zlib as unknown as { zstdDecompressSync?: Decoder }).zstdDecompressSync;

/** HTTP's "deflate" is the zlib format (RFC 9110 §8.4.1.2), but some clients send raw deflate. */
const inflate: Decoder = (buf, opts) => {
  try {
    return zlib.inflateSync(buf, opts);
  } catch (e) {
    if (isTooLarge(e)) throw e;
    return zlib.inflateRawSync(buf, opts);
  }
};

export type ContentCoding = 'identity' | 'gzip' | 'x-gzip' | 'deflate' | 'br' | 'zstd';

const DECODERS: Partial<Record<ContentCoding, Decoder>> = {
  gzip: zlib.gunzipSync,
  'x-gzip': zlib.gunzipSync,
  deflate: inflate,
  br: zlib.brotliDecompressSync,
  ...(zstd ? { zstd } : {}),
};

/** The codings this process decodes, for messages and documentation. */
export const SUPPORTED_CODINGS = ['identity', ...Object.keys(DECODERS)];

const decodes = (name: string): name is ContentCoding => name === 'identity' || Object.hasOwn(DECODERS, name);

/**
 * Names the coding of a header or query value (case and surrounding space ignored; empty is identity),
 * or throws `error` (415 for HTTP bodies, 400 for a WebSocket query) naming what is supported.
 */
export function contentCoding(value: string | undefined, error: 'unsupported_media_type' | 'bad_request'): ContentCoding {
  const name = (value ?? '').trim().toLowerCase() || 'identity';
  if (decodes(name)) return name;
  const hint = name === 'zstd' ? ` (zstd needs Node.js 22.15 or later; this server runs ${process.version})` : '';
  throw new AppError(error, `Unsupported content encoding "${name.slice(0, 40)}": use ${SUPPORTED_CODINGS.join(', ')}${hint}`);
}

/** Decodes `buf`; 413 once the decoded bytes would exceed `maxBytes`, 400 for bytes that are not of the coding. */
export function decodeBounded(buf: Buffer, coding: ContentCoding, maxBytes: number): Buffer {
  if (coding === 'identity') {
    if (buf.length > maxBytes) throw new AppError('payload_too_large', `Request body exceeds ${maxBytes} bytes`);
    return buf;
  }
  const decode = DECODERS[coding];
  if (!decode) throw new AppError('unsupported_media_type', `Unsupported content encoding "${coding}"`);
  try {
    return decode(buf, { maxOutputLength: maxBytes });
  } catch (e) {
    if (isTooLarge(e)) throw new AppError('payload_too_large', `Decompressed body exceeds ${maxBytes} bytes`);
    throw new AppError('bad_request', `Body is not valid ${coding} data`);
  }
}

function isTooLarge(e: unknown): boolean {
  return (e as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || /Cannot create a Buffer larger|maxOutputLength/i.test(String((e as Error)?.message));
}
