// Credentials out of what is logged or echoed: server URLs without user:password, request URLs
// without keys, tokens and signatures.

/** Server URLs (comma-separated, as NATS_URL may be) with any user:password@ removed, for messages. */
export function withoutCredentials(urls: string): string {
  return urls.replace(/(^|,\s*)([a-z][a-z0-9+.-]*:\/\/)[^@/,\s]*@/gi, '$1$2[redacted]@');
}

/** Removes credentials from a URL before it is logged: token/signature values and any API key. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  const path = (q < 0 ? url : url.slice(0, q)).split('/').map(withoutKey).join('/');
  if (q < 0) return path;
  const query = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq < 0) return withoutKey(pair);
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      // Compared decoded, as the query parser reads them: `%73ignature=` is a signature too, and so
      // is one inside a value that is a URL itself (the player's eventsUrl).
      if (/^(?:token|signature)$/i.test(decoded(name)) || /(?:^|[?&])(?:token|signature)=/i.test(decoded(value))) return `${name}=[redacted]`;
      return `${withoutKey(name)}=${withoutKey(value)}`;
    });
  return `${path}?${query.join('&')}`;
}

/** A path segment, query name or value without any API key in it; '[redacted]' whole when only its decoded form shows one. */
function withoutKey(part: string): string {
  const plain = part.replace(/(public|secret)_key_svc_[^/?&#]*/gi, '$1_key_svc_[redacted]');
  return /(?:public|secret)_key_svc_(?!\[redacted\])/i.test(decoded(plain)) ? '[redacted]' : plain;
}

function decoded(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
