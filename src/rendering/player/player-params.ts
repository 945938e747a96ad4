// The hosted player page's query as the page uses it: validated by its schema (player.dto.ts), the
// playback position read as a time selector; `live` refuses a `time` (a live page starts at the live
// edge: a position it would ignore is a mistake worth a 400). On a page opened through a presigned link, eventsUrl
// may only name what that link opens: this recording's events, carrying the same link or another
// valid link of this recording and tenant. Else a link of tenant A could show tenant B's recording
// (or anything else the origin serves) under A's page.
import { z } from 'zod';
import type { AuthContext } from '../../auth/auth-context';
import type { LinkSigner } from '../../auth/link-signer';
import { PRESIGN_PARAMS } from '../../auth/link-verifier';
import { AppError } from '../../common/app-error';
import { queryObject } from '../../common/query-encoding';
import { parseWith, ValidationError } from '../../common/validation';
import { parseTimeSelector, TimeSelector } from '../shared/time-selector';
import { playerQueryFor } from './player.dto';

/** eventsUrl is same-origin: returned as given when relative, as path+query+hash when absolute. */
export type PlayerQuery = Omit<z.output<ReturnType<typeof playerQueryFor>>, 'time'> & { time: TimeSelector };

/** Whose page is asked for, and with what: a presigned page's eventsUrl is held to its link. */
export interface PlayerPageAccess {
  /** The page's recording, canonical lowercase. */
  recordingId: string;
  auth: AuthContext;
  /** Checks a link handed back; `base` is PUBLIC_BASE_URL (its path prefixes absolute links). */
  links: Pick<LinkSigner, 'verify' | 'base'>;
}

/**
 * `requestOrigin` (e.g. "https://tapedeck.example.com"): without it only relative URLs pass. With
 * `access` of a presigned page, eventsUrl must stay within what the page's link opens (else 400).
 */
export function parsePlayerQuery(query: unknown, requestOrigin?: string, access?: PlayerPageAccess): PlayerQuery {
  const q = parseWith(playerQueryFor(requestOrigin), query ?? {}, 'player query');
  if (q.live && q.time !== undefined) {
    const message = 'must be absent with live=true: a live page opens at the live edge (pause and go back from there)';
    throw new ValidationError(`Invalid player query: time: ${message}`, [{ path: 'time', message }]);
  }
  if (q.eventsUrl !== undefined && access?.auth.credential === 'presigned') checkLinkedEventsUrl(q.eventsUrl, (query ?? {}) as Record<string, unknown>, access);
  return {
    controls: q.controls,
    autoplay: q.autoplay,
    live: q.live,
    mode: q.mode,
    speed: q.speed,
    time: parseTimeSelector(q.time),
    eventsUrl: q.eventsUrl,
  };
}

/**
 * The live feed of an events URL: `live=true` set in its query (any `live` it had replaced), the rest
 * kept as written (a link's signature covers its parameters' exact text), the fragment dropped.
 */
export function liveEventsUrl(eventsUrl: string): string {
  const [beforeHash] = eventsUrl.split('#', 1);
  const q = beforeHash.indexOf('?');
  const path = q < 0 ? beforeHash : beforeHash.slice(0, q);
  const params =
    q < 0
      ? []
      : beforeHash
          .slice(q + 1)
          .split('&')
          .filter((p) => p !== '' && !/^live(?:=|$)/.test(p));
  return `${path}?${params.concat('live=true').join('&')}`;
}

const EVENTS_PATH = /^(.*)\/recordings\/([^/]+)\/events$/;

/** Throws a 400 unless `eventsUrl` (same-origin, as the schema left it) is this recording's events under a link that opens them. */
function checkLinkedEventsUrl(eventsUrl: string, pageQuery: Record<string, unknown>, access: PlayerPageAccess): void {
  // Resolved as the viewer's browser will, against the page (/recordings/{id}/player, a sibling of …/events).
  const url = new URL(eventsUrl, `http://service/recordings/${access.recordingId}/player`);
  const m = EVENTS_PATH.exec(url.pathname);
  const prefix = access.links.base ? new URL(access.links.base).pathname.replace(/\/+$/, '') : '';
  const segment = m && (m[1] === '' || m[1] === prefix) ? decoded(m[2]) : undefined;
  if (segment?.toLowerCase() !== access.recordingId) {
    refuse(`this page was opened with a presigned link: must be this recording's events (events?<link>, or …/recordings/${access.recordingId}/events?<link>)`);
  }
  const link = queryObject(url.searchParams);
  if (PRESIGN_PARAMS.every((k) => typeof link[k] === 'string' && link[k] === pageQuery[k])) return; // the page's own link
  let tenantId: string;
  try {
    tenantId = access.links.verify({ kind: 'recording', recordingId: segment }, link).tenantId;
  } catch (e) {
    if (e instanceof AppError || e instanceof ValidationError)
      refuse(`must carry this page's presigned link or another valid one of this recording (${e.message})`);
    throw e;
  }
  if (tenantId !== access.auth.tenantId) refuse("must carry a presigned link of this page's tenant");
}

function refuse(message: string): never {
  throw new ValidationError(`Invalid player query: eventsUrl: ${message}`, [{ path: 'eventsUrl', message }]);
}

function decoded(s: string): string | undefined {
  try {
    return decodeURIComponent(s);
  } catch {
    return undefined;
  }
}
