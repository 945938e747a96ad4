// One value as one URL path segment. encodeURIComponent leaves "." and ".." as they are, and clients
// that remove dot-segments (RFC 3986 §5.2.4: curl, Python requests, most HTTP libraries) then turn
// /replays/p/.. into /replays. Written %2E and %2E%2E they stay data and the server decodes them
// back. WHATWG URL parsers (browsers, fetch) treat %2E%2E as ".." too: docs/presigned-links.md.
export function pathSegment(value: string): string {
  if (value === '.') return '%2E';
  if (value === '..') return '%2E%2E';
  return encodeURIComponent(value);
}
