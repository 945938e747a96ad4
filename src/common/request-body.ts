// Request bodies arrive as raw Buffers (see main.ts content-type parsers), so every endpoint decodes
// them the same way: optional gzip with a bound on the inflated size, strict UTF-8, and JSON parse
// errors reported with their position as 400s.
import { gunzipSync } from 'node:zlib';
import type { FastifyRequest } from 'fastify';
import { AppError } from './app-error';

const decoder = new TextDecoder('utf-8', { fatal: true });

export function bodyBuffer(req: FastifyRequest, maxBytes: number): Buffer {
  const raw = req.body;
  if (raw === undefined || raw === null) throw new AppError('bad_request', 'Request body is empty');
  const buf = Buffer.isBuffer(raw) ? raw : Buffer.from(typeof raw === 'string' ? raw : JSON.stringify(raw));
  const encoding = String(req.headers['content-encoding'] ?? 'identity').toLowerCase().trim();
  if (encoding === 'identity' || encoding === '') {
    if (buf.length > maxBytes) throw new AppError('payload_too_large', `Request body exceeds ${maxBytes} bytes`);
    return buf;
  }
  if (encoding !== 'gzip') throw new AppError('unsupported_media_type', `Unsupported Content-Encoding "${encoding.slice(0, 40)}": use gzip or identity`);
  return gunzipBounded(buf, maxBytes);
}

export function gunzipBounded(buf: Buffer, maxBytes: number): Buffer {
  try {
    return gunzipSync(buf, { maxOutputLength: maxBytes });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ERR_BUFFER_TOO_LARGE' || /Cannot create a Buffer larger|maxOutputLength/i.test(String((e as Error).message))) {
      throw new AppError('payload_too_large', `Decompressed body exceeds ${maxBytes} bytes`);
    }
    throw new AppError('bad_request', 'Body is not valid gzip data');
  }
}

export function utf8(buf: Uint8Array): string {
  try {
    return decoder.decode(buf);
  } catch {
    throw new AppError('bad_request', 'Body is not valid UTF-8');
  }
}

export function parseJson(text: string, what = 'Body'): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new AppError('bad_request', `${what} is not valid JSON: ${(e as Error).message.slice(0, 200)}`);
  }
}

export function jsonBody(req: FastifyRequest, maxBytes: number): unknown {
  return parseJson(utf8(bodyBuffer(req, maxBytes)));
}
