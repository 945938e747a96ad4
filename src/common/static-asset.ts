// Bodies held in memory and served with a strong ETag, and the conditional GET that answers them: an
// If-None-Match naming the ETag (RFC 9110 weak comparison, a list, or `*`) gets 304 with the same
// headers and no body. The SDK scripts, the player's assets and screenshots are served this way;
// each route keeps its own Cache-Control, CORS and content headers.
import { createHash } from 'node:crypto';

/** A body kept in memory with its strong ETag. */
export interface StaticAsset {
  body: Buffer;
  contentType: string;
  etag: string;
}

/** What a conditional GET answers: the body with a 200, nothing with a 304. */
export interface ConditionalAnswer {
  status: 200 | 304;
  headers: Record<string, string>;
  body?: Buffer;
}

/** The strong ETag of a body: its quoted base64url sha256. */
export function strongEtag(body: Buffer): string {
  return `"${createHash('sha256').update(body).digest('base64url')}"`;
}

export function staticAsset(body: Buffer, contentType: string): StaticAsset {
  return { body, contentType, etag: strongEtag(body) };
}

/** If-None-Match matching (RFC 9110 weak comparison): a list of tags, W/ prefixes, or `*`. */
export function etagMatches(ifNoneMatch: string | string[] | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const header = Array.isArray(ifNoneMatch) ? ifNoneMatch.join(',') : ifNoneMatch;
  const opaque = etag.replace(/^W\//, '');
  return header
    .split(',')
    .map((t) => t.trim())
    .some((t) => t === '*' || t.replace(/^W\//, '') === opaque);
}

/**
 * 304 with ETag and `headers` when If-None-Match names `etag`; else 200 with the body, ETag,
 * `headers` and `bodyHeaders` (those that describe the body, such as Content-Type, sent with it only).
 */
export function conditionalGet(
  ifNoneMatch: string | string[] | undefined,
  etag: string,
  body: Buffer,
  headers: Record<string, string>,
  bodyHeaders: Record<string, string> = {},
): ConditionalAnswer {
  const always = { ETag: etag, ...headers };
  if (etagMatches(ifNoneMatch, etag)) return { status: 304, headers: always };
  return { status: 200, headers: { ...always, ...bodyHeaders }, body };
}
