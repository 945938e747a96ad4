import * as zlib from 'node:zlib';
import { AppError } from './app-error';
import { contentCoding, decodeBounded, SUPPORTED_CODINGS } from './content-coding';

const encoders: Record<string, (b: Buffer) => Buffer> = {
  gzip: zlib.gzipSync,
  'x-gzip': zlib.gzipSync,
  deflate: zlib.deflateSync,
  'deflate (raw)': zlib.deflateRawSync,
  br: zlib.brotliCompressSync,
};
const codingOf = (name: string) => contentCoding(name.replace(' (raw)', ''), 'unsupported_media_type');
const hasZstd = typeof (zlib as unknown as { zstdCompressSync?: unknown }).zstdCompressSync === 'function';

function failure(f: () => unknown): AppError {
  try {
    f();
  } catch (e) {
    if (e instanceof AppError) return e;
    throw e;
  }
  throw new Error('did not throw');
}

describe('contentCoding', () => {
  it('reads header and query values case- and space-insensitively; empty or absent is identity', () => {
    expect(contentCoding(undefined, 'bad_request')).toBe('identity');
    expect(contentCoding('', 'bad_request')).toBe('identity');
    expect(contentCoding('  ', 'bad_request')).toBe('identity');
    expect(contentCoding(' GZIP ', 'bad_request')).toBe('gzip');
    expect(contentCoding('Br', 'bad_request')).toBe('br');
    expect(contentCoding('deflate', 'bad_request')).toBe('deflate');
  });

  it('refuses other codings with the given error, naming what is supported', () => {
    const http = failure(() => contentCoding('compress', 'unsupported_media_type'));
    expect(http.code).toBe('unsupported_media_type');
    expect(http.message).toMatch(/"compress".*identity, gzip, x-gzip, deflate, br/);
    expect(failure(() => contentCoding('gzip, br', 'bad_request')).code).toBe('bad_request');
  });

  it.each(['constructor', '__proto__', 'CONSTRUCTOR'])('refuses %s: names on Object.prototype are not codings (the value is lower-cased first)', (name) => {
    expect(failure(() => contentCoding(name, 'unsupported_media_type')).code).toBe('unsupported_media_type');
  });

  (hasZstd ? it : it.skip)('accepts zstd where the runtime decodes it', () => {
    expect(contentCoding('zstd', 'bad_request')).toBe('zstd');
    const body = Buffer.from('[{"type":3,"timestamp":1,"data":{}}]');
    const zstdCompressSync = (zlib as unknown as { zstdCompressSync: (b: Buffer) => Buffer }).zstdCompressSync;
    expect(decodeBounded(zstdCompressSync(body), 'zstd', 1024)).toEqual(body);
  });

  (hasZstd ? it.skip : it)('refuses zstd on a runtime without it, saying which Node.js has it', () => {
    expect(SUPPORTED_CODINGS).not.toContain('zstd');
    expect(failure(() => contentCoding('zstd', 'bad_request')).message).toMatch(/zstd needs Node\.js 22\.15 or later; this server runs v\d+/);
  });
});

describe('decodeBounded', () => {
  const body = Buffer.from(JSON.stringify(Array.from({ length: 200 }, (_, i) => ({ type: 3, timestamp: i, data: { s: 'é'.repeat(i) } }))));

  it.each(Object.keys(encoders))('decodes %s byte for byte', (name) => {
    expect(decodeBounded(encoders[name](body), codingOf(name), body.length)).toEqual(body);
  });

  it.each(Object.keys(encoders))('answers 413 for %s that decodes one byte over the bound, and stops there', (name) => {
    const bomb = encoders[name](Buffer.alloc(64 * 1024 * 1024, 0x20));
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const e = failure(() => decodeBounded(bomb, codingOf(name), 64 * 1024 * 1024 - 1));
    expect(e.code).toBe('payload_too_large');
    expect(e.message).toBe(`Decompressed body exceeds ${64 * 1024 * 1024 - 1} bytes`);
  });

  it.each(Object.keys(encoders))('answers 400 for bytes that are not %s', (name) => {
    const e = failure(() => decodeBounded(Buffer.from('\x00\xff not compressed at all \xff'), codingOf(name), 1024));
    expect(e.code).toBe('bad_request');
    expect(e.message).toBe(`Body is not valid ${codingOf(name)} data`);
  });

  it('passes identity through up to the bound and answers 413 above it', () => {
    expect(decodeBounded(body, 'identity', body.length)).toBe(body);
    expect(failure(() => decodeBounded(body, 'identity', body.length - 1)).code).toBe('payload_too_large');
  });
});
