// GET /recordings/{id}/player[.html]: the hosted player page. The page never carries a credential
// of the caller: it fetches the events through a presigned URL, relative to the page, either the
// caller's own link (presigned access), a short-lived link signed here (private key), or the
// caller's same-origin eventsUrl override.
import { Inject, Injectable } from '@nestjs/common';
import type { AuthContext } from '../../auth/auth-context';
import { LinkSigner } from '../../auth/link-signer';
import { presignQuery } from '../../auth/presign';
import { AppError, badRequest } from '../../common/app-error';
import { qualityList } from '../../common/quality-list';
import { APP_CONFIG, AppConfig } from '../../config/config';
import { PlayerAssets } from './player-assets';
import { buildPlayerPage, PlayerPage } from './player-page';
import { liveEventsUrl, parsePlayerQuery } from './player-params';
import { RecordingsQueryService } from '../../recordings/recordings-query.service';
import { playerHeading } from './player-heading';

/** Lifetime of the events link signed for a page requested with the private key. */
export const PLAYER_EVENTS_TTL_SECONDS = 600;
/** The same for a live page: its feed ends when the link expires (the page then asks for a reload). */
export const PLAYER_LIVE_EVENTS_TTL_SECONDS = 3600;

export interface PlayerRequestInput {
  auth: AuthContext;
  recordingId: string;
  /** True for /player.html: the extension wins over Accept. */
  html: boolean;
  accept?: string;
  query: Record<string, unknown>;
  /** Origin the viewer used, e.g. "https://tapedeck.example.com", for absolute eventsUrl values. */
  origin?: string;
}

const API_KEY = /(?:secret|public)_key_svc_/;

@Injectable()
export class PlayerService {
  constructor(
    private readonly recordings: RecordingsQueryService,
    private readonly signer: LinkSigner,
    private readonly assets: PlayerAssets,
    @Inject(APP_CONFIG) private readonly cfg: AppConfig,
  ) {}

  async page(input: PlayerRequestInput): Promise<PlayerPage> {
    if (!input.html && !acceptsHtml(input.accept)) {
      throw new AppError('not_acceptable', 'The player is an HTML page: request /player.html or send Accept: text/html');
    }
    const query = parsePlayerQuery(input.query, input.origin, { recordingId: input.recordingId, auth: input.auth, links: this.signer });
    if (query.eventsUrl !== undefined && API_KEY.test(decodeSafely(query.eventsUrl))) {
      throw badRequest('eventsUrl must not carry an API key: use a presigned events URL');
    }
    // 404 for an unknown recording; its summary, once projected, heads the page.
    const recording = await this.recordings.get(input.auth.tenantId, input.recordingId, false, false);
    const eventsUrl = query.eventsUrl ?? this.eventsUrl(input, query.live);
    const page = buildPlayerPage({
      ...query,
      eventsUrl: query.live ? liveEventsUrl(eventsUrl) : eventsUrl,
      frameAncestors: this.cfg.PLAYER_FRAME_ANCESTORS,
      assetSources: this.cfg.PLAYER_ASSET_SOURCES,
      ...playerHeading(input.recordingId, query.eventsUrl, recording.projected ? recording : undefined, query.live),
      // Its own events only: an eventsUrl override may play something else (a replay, a window); a live page reads the feed.
      ...(query.eventsUrl === undefined && !query.live && recording.projected && recording.startedAt !== null && recording.endedAt !== null
        ? { span: { first: recording.startedAt, last: recording.endedAt } }
        : {}),
      // Relative to /recordings/{id}/player(.html), so a path prefix in front of the service works.
      assetsBase: '../../assets',
      assetVersion: this.assets.version,
    });
    return { html: page.html, headers: { ...page.headers, ...(input.html ? {} : { Vary: 'Accept' }) } };
  }

  /** `events?<presigned query>`, relative to the page (a sibling of /player). */
  private eventsUrl(input: PlayerRequestInput, live: boolean): string {
    const { auth } = input;
    if (auth.credential === 'presigned') {
      const q = (name: string) => first(input.query[name]);
      // The guard has verified these four values against this recording.
      return `events?${presignQuery({ tenantId: q('tenantId'), expires: q('expires'), keyId: q('keyId'), signature: q('signature') })}`;
    }
    try {
      const ttl = live ? PLAYER_LIVE_EVENTS_TTL_SECONDS : PLAYER_EVENTS_TTL_SECONDS;
      return `events?${this.signer.sign(auth.tenantId, { kind: 'recording', recordingId: input.recordingId }, ttl).query}`;
    } catch (err) {
      if (err instanceof AppError && err.code === 'bad_request') {
        throw badRequest(
          'The player page loads the events through a presigned URL, and this tenant has no signing key: create one (signing-keys create), or pass a presigned eventsUrl',
        );
      }
      throw err;
    }
  }
}

/**
 * Whether an Accept header admits text/html: the most specific matching range (text/html, text/*,
 * *\/*) must have q > 0. No header accepts anything.
 */
export function acceptsHtml(accept: string | undefined): boolean {
  if (accept === undefined || accept.trim() === '') return true;
  const ranges = qualityList(accept);
  for (const candidate of ['text/html', 'text/*', '*/*']) {
    const hits = ranges.filter((r) => r.value === candidate);
    if (hits.length) return Math.max(...hits.map((r) => r.q)) > 0;
  }
  return false;
}

/** A query value as the guard read it: the first of repeated values. */
function first(v: unknown): string {
  return typeof v === 'string' ? v : Array.isArray(v) && typeof v[0] === 'string' ? v[0] : '';
}

function decodeSafely(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
