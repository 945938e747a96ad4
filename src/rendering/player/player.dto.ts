// The hosted player page's contract: its query, parsed by player-params.ts (as "player query", so a
// failure reads "Invalid player query: …") and documented in /openapi.json from the same schema.
// eventsUrl may only point at our own origin: a relative reference, or an absolute http(s) URL whose
// origin is the request's (and, on a presigned page, at what its link opens: player-params.ts).
import { z } from 'zod';
import { queryBoolean } from '../../common/validation';

// Plain decimals as any language prints them: `.5`, `1.`, `0.2500000000000001`. They become a number
// before the checks, so the schema documents the number a client sends, not a string pattern.
const PLAIN_DECIMAL = /^(?:\d{1,3}(?:\.\d{0,20})?|\.\d{1,20})$/;
const speed = z
  .preprocess(
    (v) => (typeof v === 'string' && PLAIN_DECIMAL.test(v) ? Number(v) : v),
    z.number({ error: 'must be a number from 0.25 to 4' }).min(0.25, { message: 'must be at least 0.25' }).max(4, { message: 'must be at most 4' }),
  )
  .prefault(1)
  .describe('Playback speed, a number from 0.25 to 4; default 1. Else 400.');

const mode = z
  .enum(['standard', 'minimal', 'capture'])
  .default('standard')
  .describe(
    'standard (default): page with a title bar; minimal: the player alone, for embeds; capture: the replay fills the viewport, no chrome or controls (for screenshots). Else 400.',
  );
export type PlayerMode = z.output<typeof mode>;

/** The query of /player, /player.html and /preview; `origin` (e.g. "https://tapedeck.example.com"): without it only relative eventsUrls pass. */
export const playerQueryFor = (origin?: string) =>
  z.object({
    controls: queryBoolean(true).describe('Show the control bar; default true. Only true/false/1/0 (else 400). Ignored in capture mode (no controls).'),
    autoplay: queryBoolean(false).describe(
      'Start playing on load; default false. Only true/false/1/0 (else 400). Ignored with live=true (a live page always follows the live edge).',
    ),
    live: queryBoolean(false).describe(
      'Watch the recording live: the page opens at the live edge and follows it as events are stored (the live event feed, GET /recordings/{recordingId}/events?live=true, as Server-Sent Events), ' +
        'shows how far behind it is, lets the viewer pause, go back within what it received and return to live, and says when the session ended (no event for LIVE_IDLE_SECONDS). ' +
        'Default false. Only true/false/1/0 (else 400). With time: 400 (a live page starts at the live edge); speed applies to playback after pausing.',
    ),
    mode,
    speed,
    time: z
      .string()
      .max(64)
      .optional()
      .describe(
        'Start position, as for screenshots: offset:<ms> (negative from the end), percent:<0-100> or epoch:<ms>; default (when absent) offset:0. Malformed, empty included: 400; outside the recording the player starts at the nearest end.',
      )
      .meta({ example: 'percent:50' }),
    eventsUrl: z
      .string()
      .max(4096)
      .transform((raw, ctx) => {
        const url = sameOriginUrl(raw, origin);
        if (url === undefined) ctx.addIssue({ code: 'custom', message: 'must be a relative or same-origin URL' });
        return url ?? '';
      })
      .optional()
      .describe(
        'Where the page fetches the events: a relative URL or an absolute one of this origin (else 400), typically a presigned events URL. Must not carry an API key (400). ' +
          "On a page opened with a presigned link, only this recording's events (events?…, /recordings/{recordingId}/events?…) carrying the same link or another valid presigned link of this recording and tenant (else 400): a link never shows what it does not open.",
      ),
  });

/** The query as /openapi.json documents it (the same-origin rule needs the request's origin, the document none). */
export const PlayerQuerySchema = playerQueryFor();

const SCHEME = /^[a-z][a-z0-9+.-]*:/i;
const PLACEHOLDER = 'http://same-origin.invalid';

/** Same-origin: returned as given when relative, as path+query+hash when absolute; anything else undefined. */
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
