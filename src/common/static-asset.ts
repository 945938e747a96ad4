// Bodies held in memory and served with a strong ETag, and the conditional GET that answers them: an
// If-None-Match naming the ETag (RFC 9110 weak comparison, a list, or `*`) gets 304 with the same
// headers and no body. The SDK scripts, the player's assets and screenshots are served this way;
// each route keeps its own Cache-Control, CORS and content headers. Scripts and stylesheets are also
// served compressed (negotiatedGet): brotli or gzip by the request's Accept-Encoding, each coding
// compressed once per process when first asked, with its own strong ETag and `Vary: Accept-Encoding`.
import { createHash } from 'node:crypto';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { qualityList } from './quality-list';

/** A body kept in memory with its strong ETag. */
export interface StaticAsset {
  body: Buffer;
  contentType: string;
  etag: string;
  /** Compressed representations, made when first asked (negotiatedGet). */
  encoded?: Partial<Record<AssetCoding, { body: Buffer; etag: string } | null>>;
}

/** The codings assets are served in besides identity, in order of preference. */
export type AssetCoding = 'br' | 'gzip';
const CODINGS: readonly AssetCoding[] = ['br', 'gzip'];

/**
 * Compresses once per process: brotli 5 (within 10 % of 11's size, about 10 ms for 100 KB against
 * 120 ms, on the event loop once) and gzip 9 (3 ms). Null when it does not make the body smaller.
 */
function encode(asset: StaticAsset, coding: AssetCoding): { body: Buffer; etag: string } | null {
  asset.encoded ??= {};
  const known = asset.encoded[coding];
  if (known !== undefined) return known;
  const body =
    coding === 'br'
      ? brotliCompressSync(asset.body, { params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: asset.body.length } })
      : gzipSync(asset.body, { level: 9 });
  const out = body.length < asset.body.length ? { body, etag: strongEtag(body) } : null;
  asset.encoded[coding] = out;
  return out;
}

/**
 * The coding to send for an Accept-Encoding (RFC 9110 §12.5.3): the client's highest q-value among
 * br and gzip (`*` standing for both, x-gzip for gzip), brotli on a tie; identity when neither is
 * accepted (no header means identity here: a client that wants compression says so).
 */
export function chooseCoding(acceptEncoding: string | string[] | undefined): AssetCoding | 'identity' {
  const items = qualityList(acceptEncoding);
  const q = (coding: AssetCoding) =>
    items.find((i) => i.value === coding || (coding === 'gzip' && i.value === 'x-gzip'))?.q ?? items.find((i) => i.value === '*')?.q ?? 0;
  let best: AssetCoding | 'identity' = 'identity';
  let bestQ = 0;
  for (const c of CODINGS) {
    if (q(c) > bestQ) [best, bestQ] = [c, q(c)];
  }
  return best;
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

/**
 * conditionalGet of an asset in the coding the request accepts (chooseCoding): the compressed body
 * with its own ETag and Content-Encoding, or the identity body. Every answer, 304 included, carries
 * `Vary: Accept-Encoding` so shared caches keep the representations apart; Content-Encoding describes
 * a body and goes only with one.
 */
export function negotiatedGet(
  acceptEncoding: string | string[] | undefined,
  ifNoneMatch: string | string[] | undefined,
  asset: StaticAsset,
  headers: Record<string, string>,
  bodyHeaders: Record<string, string> = {},
): ConditionalAnswer {
  const coding = chooseCoding(acceptEncoding);
  const encoded = coding === 'identity' ? null : encode(asset, coding);
  const vary = { ...headers, Vary: 'Accept-Encoding' };
  if (!encoded) return conditionalGet(ifNoneMatch, asset.etag, asset.body, vary, bodyHeaders);
  return conditionalGet(ifNoneMatch, encoded.etag, encoded.body, vary, { ...bodyHeaders, 'Content-Encoding': coding });
}
