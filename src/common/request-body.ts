// Request bodies arrive as raw Buffers (see main.ts content-type parsers), so every endpoint decodes
// them the same way: an optional content coding (content-coding.ts) with a bound on the decoded size,
// strict UTF-8, and JSON parse errors reported with their position as 400s.
import type { FastifyRequest } from 'fastify';
import { AppError } from './app-error';
import { ContentCoding, contentCoding, decodeBounded } from './content-coding';
import { unsupportedTypeMessage } from './error.filter';

const decoder = new TextDecoder('utf-8', { fatal: true });

/** The body as received, still in its content coding (named, or 415). */
export function rawBody(req: FastifyRequest): { body: Buffer; coding: ContentCoding } {
  const raw = req.body;
  if (raw === undefined || raw === null) throw new AppError('bad_request', 'Request body is empty');
  const body = Buffer.isBuffer(raw) ? raw : Buffer.from(typeof raw === 'string' ? raw : JSON.stringify(raw));
  return { body, coding: contentCoding(req.headers['content-encoding'] as string | undefined, 'unsupported_media_type') };
}

export function bodyBuffer(req: FastifyRequest, maxBytes: number): Buffer {
  const { body, coding } = rawBody(req);
  return decodeBounded(body, coding, maxBytes);
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

/**
 * The body of a JSON endpoint (metadata, admin). The server takes the ingestion types for every
 * route (one parser), so these refuse the others here: application/json only.
 */
export function jsonBody(req: FastifyRequest, maxBytes: number): unknown {
  const type = req.headers['content-type'];
  if ((type ?? '').split(';')[0].trim().toLowerCase() !== 'application/json') throw new AppError('unsupported_media_type', unsupportedTypeMessage(type));
  return parseJson(utf8(bodyBuffer(req, maxBytes)));
}
