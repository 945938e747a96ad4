// Run in the browser by the replay sanitiser (replay-sanitizer.ts, css-urls.ts): what a URL written
// in a recording may make the replaying browser do. A URL is read as the browser's URL parser reads
// it (tabs and newlines anywhere and leading or trailing control characters and spaces ignored, the
// scheme in any case), so "java\tscript:" and " DATA:" are what they are.
//
// - remote (http:, https:): the recorded site's assets. The player's CSP loads them only from
//   PLAYER_ASSET_SOURCES; screenshots never reach a network.
// - data: inline content; harmless as an image, a font or media, never as a document, a stylesheet
//   or a link target (a data: frame also crashed Chromium, see replay-page.ts).
// - fragment (#id): a reference inside the replayed document (SVG gradients, filters, <use>).
// - blank (about:blank): an empty frame, which rrweb fills with the document it recorded in it.
// - relative: resolved against the player page, i.e. the service itself; rrweb records absolute URLs.
// - other: every other scheme (javascript:, blob:, file:, ...).
export type UrlKind = 'remote' | 'data' | 'fragment' | 'blank' | 'relative' | 'other';

/** What a value stands for where it is used. */
export type UrlUse =
  /** img, picture/source, input type=image, SVG image, poster, background, CSS url(), image-set(). */
  | 'image'
  /** video, audio, source, track. */
  | 'media'
  /** <link rel=stylesheet>, CSS @import. */
  | 'stylesheet'
  /** iframe and frame src. */
  | 'frame'
  /** a, area, form action: only followed on a click, which a replay never makes. */
  | 'navigation'
  /** SVG references other than images (use, gradients, patterns, textPath). */
  | 'reference';

export function urlKind(raw: string): UrlKind {
  const s = raw.replace(/[\t\n\r]/g, '').replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, '');
  if (s.charAt(0) === '#') return 'fragment';
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(s);
  if (!scheme) return s === '' ? 'other' : 'relative';
  const name = scheme[1].toLowerCase();
  if (name === 'http' || name === 'https') return 'remote';
  if (name === 'data') return 'data';
  if (name === 'about' && /^about:blank(?:[?#]|$)/i.test(s)) return 'blank';
  return 'other';
}

const NEVER_FOLLOWED = /^(?:javascript|vbscript|data|blob|file|filesystem)$/;

/** Whether a replay may keep `raw` where it is used as `use`. */
export function urlAllowed(raw: string, use: UrlUse): boolean {
  const kind = urlKind(raw);
  switch (use) {
    case 'image':
    case 'media':
      return kind === 'remote' || kind === 'data';
    case 'stylesheet':
      return kind === 'remote';
    case 'frame':
      return kind === 'blank';
    case 'reference':
      return kind === 'fragment';
    case 'navigation': {
      if (kind !== 'other' && kind !== 'data') return true;
      const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(raw.replace(/[\t\n\r]/g, '').replace(/^[\u0000-\u0020]+/, ''));
      return !!scheme && !NEVER_FOLLOWED.test(scheme[1].toLowerCase());
    }
  }
}

/** A URL that loads nothing, for places where a URL must stay (inside CSS). */
export const INERT_URL = 'data:,';

/**
 * A srcset (or imagesrcset) with only the candidates whose URL may load as an image, as the HTML
 * parser splits it (a URL runs to whitespace; a trailing comma ends it), or null when none is left.
 */
export function sanitizeSrcset(value: string): string | null {
  const kept: string[] = [];
  let i = 0;
  const n = value.length;
  const space = (c: string) => c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f';
  while (i < n) {
    while (i < n && (space(value[i]) || value[i] === ',')) i++;
    if (i >= n) break;
    let j = i;
    while (j < n && !space(value[j])) j++;
    let url = value.slice(i, j);
    let descriptors = '';
    if (/,+$/.test(url)) {
      url = url.replace(/,+$/, '');
    } else {
      let depth = 0;
      let k = j;
      while (k < n && (depth > 0 || value[k] !== ',')) {
        if (value[k] === '(') depth++;
        else if (value[k] === ')' && depth > 0) depth--;
        k++;
      }
      descriptors = value.slice(j, k).trim();
      j = k;
    }
    if (url && urlAllowed(url, 'image')) kept.push(descriptors ? `${url} ${descriptors}` : url);
    i = j;
  }
  return kept.length ? kept.join(', ') : null;
}
