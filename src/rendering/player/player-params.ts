// Query validation for the hosted player page. eventsUrl may only point at our own origin:
// a relative reference, or an absolute http(s) URL whose origin is the request's.
import { z } from 'zod';
import { parseWith, queryBoolean } from '../../common/validation';
import { parseTimeSelector, TimeSelector } from '../shared/time-selector';

export type PlayerMode = 'standard' | 'minimal' | 'capture';

export interface PlayerQuery {
  controls: boolean;
  autoplay: boolean;
  mode: PlayerMode;
  speed: number;
  time: TimeSelector;
  /** Same-origin: returned as given when relative, as path+query+hash when absolute. */
  eventsUrl?: string;
}

const speed = z
  .string()
  // Plain decimals as any language prints them: `.5`, `1.`, `0.2500000000000001`.
  .regex(/^(?:\d{1,3}(?:\.\d{0,20})?|\.\d{1,20})$/, { message: 'must be a number from 0.25 to 4' })
  .transform(Number)
  .pipe(z.number().min(0.25, { message: 'must be at least 0.25' }).max(4, { message: 'must be at most 4' }))
  .optional()
  .transform((v) => v ?? 1);

const schema = (origin?: string) =>
  z.object({
    controls: queryBoolean(true),
    autoplay: queryBoolean(false),
    mode: z
      .enum(['standard', 'minimal', 'capture'])
      .optional()
      .transform((m) => m ?? 'standard'),
    speed,
    time: z.string().max(64).optional(),
    eventsUrl: z
      .string()
      .max(4096)
      .transform((raw, ctx) => {
        const url = sameOriginUrl(raw, origin);
        if (url === undefined) ctx.addIssue({ code: 'custom', message: 'must be a relative or same-origin URL' });
        return url ?? '';
      })
      .optional(),
  });

/** `requestOrigin` (e.g. "https://tapedeck.example.com"): without it only relative URLs pass. */
export function parsePlayerQuery(query: unknown, requestOrigin?: string): PlayerQuery {
  const q = parseWith(schema(requestOrigin), query ?? {}, 'player query');
  return { controls: q.controls, autoplay: q.autoplay, mode: q.mode, speed: q.speed, time: parseTimeSelector(q.time), eventsUrl: q.eventsUrl };
}

const SCHEME = /^[a-z][a-z0-9+.-]*:/i;
const PLACEHOLDER = 'http://same-origin.invalid';

function sameOriginUrl(raw: string, origin?: string): string | undefined {
  // Backslashes and control characters are normalised away by URL parsers (`/\evil`, `\t//evil`).
  if (!raw || /[\u0000-\u0020\u007f\\]/.test(raw) || raw.startsWith('//')) return undefined;
  let base: URL;
  let url: URL;
  try {
    base = new URL(origin ?? PLACEHOLDER);
    url = new URL(raw, base);
  } catch {
    return undefined;
  }
  if (url.origin !== base.origin || (url.protocol !== 'http:' && url.protocol !== 'https:')) return undefined;
  if (!SCHEME.test(raw)) return raw;
  if (!origin || !/^https?:\/\//i.test(raw)) return undefined; // `https:path` is legal but never meant
  return url.pathname + url.search + url.hash;
}
