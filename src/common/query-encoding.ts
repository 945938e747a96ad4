// Percent-encoded bytes in a query string must spell UTF-8. Fastify's parser turns a malformed
// sequence such as %FF into U+FFFD, so a metadata filter on it would silently match nothing; the
// service answers 400 instead (docs/limits.md). And a query read outside Fastify (the WebSocket
// upgrade, a URL handed in as a parameter) takes the shape Fastify gives routes.
import { isUtf8 } from 'node:buffer';

const ENCODED_RUN = /(?:%[0-9A-Fa-f]{2})+/g;

/** The first malformed percent-encoded run of a request URL's query, or null when it has none. */
export function malformedQueryEncoding(url: string): string | null {
  const q = url.indexOf('?');
  if (q < 0 || url.indexOf('%', q) < 0) return null;
  for (const [run] of url.slice(q + 1).matchAll(ENCODED_RUN)) {
    if (!isUtf8(Buffer.from(run.replace(/%/g, ''), 'hex'))) return run.length > 24 ? run.slice(0, 24) + '…' : run;
  }
  return null;
}

/** A query as Fastify hands it to routes: a repeated parameter is the array of its values (so "given twice" can be refused). */
export function queryObject(params: URLSearchParams): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = Object.create(null) as Record<string, string | string[]>;
  for (const k of new Set(params.keys())) {
    const all = params.getAll(k);
    out[k] = all.length === 1 ? all[0] : all;
  }
  return out;
}
