// Output format negotiation for screenshots: a path extension wins, then the Accept header
// (q-values respected, most specific range first), then PNG.
import { AppError } from '../../common/app-error';
import { qualityList } from '../../common/quality-list';

export type ImageFormat = 'png' | 'jpeg' | 'webp';

export interface NegotiatedFormat {
  format: ImageFormat;
  contentType: string;
}

const CONTENT_TYPES: Record<ImageFormat, string> = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp' };
const EXTENSIONS: Record<string, ImageFormat> = { png: 'png', jpeg: 'jpeg', jpg: 'jpeg', webp: 'webp' };
/** Preference among equally acceptable formats: PNG is lossless and the documented default. */
const PREFERENCE: ImageFormat[] = ['png', 'webp', 'jpeg'];

export function negotiateImageFormat(extension?: string, accept?: string): NegotiatedFormat {
  if (extension) {
    const format = EXTENSIONS[extension.replace(/^\./, '').toLowerCase()];
    if (!format) throw new AppError('bad_request', `Unsupported screenshot extension "${extension}": use .png, .jpeg, .jpg or .webp`);
    return withType(format);
  }
  const ranges = accept ? parseAccept(accept) : [];
  let best: { format: ImageFormat; q: number; exact: boolean } | undefined;
  for (const format of PREFERENCE) {
    const match = bestMatch(ranges, format);
    if (!match || match.q <= 0) continue;
    // Equal q: a type the client named beats one it only accepts through a wildcard.
    if (!best || match.q > best.q || (match.q === best.q && match.exact && !best.exact)) {
      best = { format, ...match };
    }
  }
  return withType(best?.format ?? 'png');
}

interface MediaRange {
  type: string;
  subtype: string;
  q: number;
}

function parseAccept(header: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const { value, q } of qualityList(header)) {
    const slash = value.indexOf('/');
    if (slash <= 0) continue;
    let subtype = value.slice(slash + 1);
    if (subtype === 'jpg') subtype = 'jpeg';
    ranges.push({ type: value.slice(0, slash), subtype, q });
  }
  return ranges;
}

/** The q of the most specific range matching image/<format> (exact, then image/*, then *\/*). */
function bestMatch(ranges: MediaRange[], format: ImageFormat): { q: number; exact: boolean } | undefined {
  let found: { q: number; specificity: number } | undefined;
  for (const r of ranges) {
    const specificity =
      r.type === 'image' && r.subtype === format ? 2 : r.type === 'image' && r.subtype === '*' ? 1 : r.type === '*' && r.subtype === '*' ? 0 : -1;
    if (specificity < 0) continue;
    if (!found || specificity > found.specificity || (specificity === found.specificity && r.q > found.q)) {
      found = { q: r.q, specificity };
    }
  }
  return found && { q: found.q, exact: found.specificity === 2 };
}

function withType(format: ImageFormat): NegotiatedFormat {
  return { format, contentType: CONTENT_TYPES[format] };
}
