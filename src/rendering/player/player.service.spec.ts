import type { AuthContext } from '../../auth/auth-context';
import type { LinkSigner } from '../../auth/link-signer';
import { AppError } from '../../common/app-error';
import { loadConfig } from '../../config/config';
import type { PlayerAssets } from './player-assets';
import { acceptsHtml, PLAYER_EVENTS_TTL_SECONDS, PLAYER_LIVE_EVENTS_TTL_SECONDS, PlayerService } from './player.service';
import type { EventStore } from '../../domain/event-store';
import { RecordingEventsService } from '../../recordings/recording-events.service';
import type { PageDetails } from '../../read-model/listing-page.util';
import type { ListingPlanner } from '../../read-model/listing.planner';
import type { RecordingsRepository } from '../../read-model/recordings.repository';
import { RecordingsQueryService } from '../../recordings/recordings-query.service';

const RID = '0b0e7f2c-1d2e-4f60-8a9b-0c1d2e3f4a5b';
const SECRET: AuthContext = { tenantId: 'acme', credential: 'secret', keyHandle: 'h' };
const PRESIGNED: AuthContext = { tenantId: 'acme', credential: 'presigned', scope: { kind: 'recording', recordingId: RID }, expires: 2_000_000_000 };
const LINK = { tenantId: 'acme', expires: '2000000000', keyId: 'k1', signature: 'f'.repeat(64) };

/** A projected recording's summary rows, as ClickHouse answers them. */
const PROJECTED: PageDetails = {
  summaries: [
    {
      recording_id: RID,
      started_at: '1764299465000',
      ended_at: '1764299530000',
      event_count: '40',
      bytes: '1000',
      page_views: '2',
      has_viewport: '1',
      viewport: [1280, 720],
      first_url: 'https://shop.example.com/cart?coupon=SECRET#pay',
      last_activity_at: '1764299530000',
    },
  ],
  metadata: [
    { recording_id: RID, key: 'plan', value: 'pro' },
    { recording_id: RID, key: 'userId', value: 'u-42' },
  ],
};

/** The real recordings query over an event store that holds the recording, or not, and a projection that has it, or not yet. */
function recordings(exists: boolean, details: PageDetails = { summaries: [], metadata: [] }): RecordingsQueryService {
  const store = { exists: async () => exists, lastDeletionSeq: async () => undefined } as unknown as EventStore;
  const repo = { details: async () => (exists ? details : { summaries: [], metadata: [] }) } as unknown as RecordingsRepository;
  return new RecordingsQueryService({} as ListingPlanner, repo, new RecordingEventsService(store), { base: '' } as LinkSigner);
}

function service(o: { exists?: boolean; signingKey?: boolean; details?: PageDetails } = {}) {
  const signed: { ttl?: number }[] = [];
  const signer = {
    sign: (_t: string, _s: unknown, ttl?: number) => {
      if (o.signingKey === false) throw new AppError('bad_request', 'This tenant has no signing key');
      signed.push({ ttl });
      return { query: 'tenantId=acme&expires=1&keyId=k1&signature=' + 'e'.repeat(64), expires: 1 };
    },
  } as unknown as LinkSigner;
  const source = recordings(o.exists ?? true, o.details);
  const assets = { version: 'v1' } as unknown as PlayerAssets;
  const cfg = loadConfig({ PLAYER_FRAME_ANCESTORS: "'self' https://app.example.com" });
  return { svc: new PlayerService(source, signer, assets, cfg), signed };
}

const config = (html: string) =>
  JSON.parse(/id="tapedeck-config">([^<]*)</.exec(html)![1]) as { eventsUrl: string; mode: string; speed: number; live: boolean };
const code = (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    (e: AppError) => e.code ?? e.constructor.name,
  );

describe('PlayerService', () => {
  it('signs a short-lived events link for the private key, relative to the page', async () => {
    const { svc, signed } = service();
    const page = await svc.page({ auth: SECRET, recordingId: RID, html: true, query: {} });
    expect(config(page.html)).toMatchObject({
      eventsUrl: expect.stringMatching(/^events\?tenantId=acme&expires=1&keyId=k1&signature=e{64}$/),
      mode: 'standard',
      speed: 1,
    });
    expect(signed).toEqual([{ ttl: PLAYER_EVENTS_TTL_SECONDS }]);
    expect(page.headers['Content-Security-Policy']).toContain("frame-ancestors 'self' https://app.example.com");
    expect(page.html).toContain('../../assets/rrweb-player.js?v=v1');
  });

  it('takes PLAYER_ASSET_SOURCES into the CSP, and refuses at start a value that is not a list of scheme or host sources', async () => {
    const cfg = loadConfig({ PLAYER_ASSET_SOURCES: 'https: https://*.cdn.example.com:8443/img/ http://127.0.0.1:5000' });
    const svc = new PlayerService(recordings(true), {} as LinkSigner, { version: 'v1' } as unknown as PlayerAssets, cfg);
    const page = await svc.page({ auth: PRESIGNED, recordingId: RID, html: true, query: LINK });
    expect(page.headers['Content-Security-Policy']).toContain('img-src data: blob: https: https://*.cdn.example.com:8443/img/ http://127.0.0.1:5000');
    for (const bad of [
      "'unsafe-inline'",
      "https: 'unsafe-eval'",
      'https:; script-src *',
      'https://a.example,https://b.example',
      "'nonce-x'",
      'https://a.example/"x',
    ]) {
      expect(() => loadConfig({ PLAYER_ASSET_SOURCES: bad })).toThrow(/PLAYER_ASSET_SOURCES/);
    }
  });

  it('reuses the presigned link of the request for the events', async () => {
    const { svc, signed } = service();
    const page = await svc.page({ auth: PRESIGNED, recordingId: RID, html: true, query: { ...LINK, speed: '2' } });
    expect(config(page.html).eventsUrl).toBe(`events?tenantId=acme&expires=2000000000&keyId=k1&signature=${'f'.repeat(64)}`);
    expect(signed).toEqual([]);
  });

  it('points a live page at the live feed: its own link passed through, or an hour-long one signed for the private key', async () => {
    const { svc, signed } = service();
    const viaLink = await svc.page({ auth: PRESIGNED, recordingId: RID, html: true, query: { ...LINK, live: 'true' } });
    expect(config(viaLink.html)).toMatchObject({
      eventsUrl: `events?tenantId=acme&expires=2000000000&keyId=k1&signature=${'f'.repeat(64)}&live=true`,
      live: true,
    });
    expect(signed).toEqual([]);
    const viaKey = await svc.page({ auth: SECRET, recordingId: RID, html: true, query: { live: '1' } });
    expect(config(viaKey.html).eventsUrl).toMatch(/^events\?tenantId=acme&expires=1&keyId=k1&signature=e{64}&live=true$/);
    expect(signed).toEqual([{ ttl: PLAYER_LIVE_EVENTS_TTL_SECONDS }]);
    const override = await svc.page({ auth: SECRET, recordingId: RID, html: true, query: { live: '1', eventsUrl: '/recordings/x/events?live=0&s=1' } });
    expect(config(override.html).eventsUrl).toBe('/recordings/x/events?s=1&live=true');
    expect(await code(svc.page({ auth: PRESIGNED, recordingId: RID, html: true, query: { ...LINK, live: 'true', time: 'offset:0' } }))).toBe('ValidationError');
  });

  it('passes expires on exactly as the link wrote it: the signature covers those digits', async () => {
    const { svc } = service();
    const page = await svc.page({ auth: PRESIGNED, recordingId: RID, html: true, query: { ...LINK, expires: '02000000000' } });
    expect(config(page.html).eventsUrl).toBe(`events?tenantId=acme&expires=02000000000&keyId=k1&signature=${'f'.repeat(64)}`);
  });

  it('uses a same-origin eventsUrl as given, and refuses one carrying an API key', async () => {
    const { svc } = service();
    const page = await svc.page({ auth: SECRET, recordingId: RID, html: true, query: { eventsUrl: 'https://t.example/e?x=1' }, origin: 'https://t.example' });
    expect(config(page.html).eventsUrl).toBe('/e?x=1');
    expect(await code(svc.page({ auth: SECRET, recordingId: RID, html: true, query: { eventsUrl: '/e?token=secret_key_svc_abcdefghijklmnopqr' } }))).toBe(
      'bad_request',
    );
    expect(await code(svc.page({ auth: SECRET, recordingId: RID, html: true, query: { eventsUrl: '/e?token=secret%5Fkey%5Fsvc%5Fabcdefghijklmnopqr' } }))).toBe(
      'bad_request',
    );
  });

  it('answers 400 for the private key of a tenant without a signing key, 404 for an unknown recording', async () => {
    const err = await service({ signingKey: false })
      .svc.page({ auth: SECRET, recordingId: RID, html: true, query: {} })
      .catch((e: AppError) => e);
    expect(err).toMatchObject({ code: 'bad_request', message: expect.stringMatching(/signing key/) });
    expect(await code(service({ exists: false }).svc.page({ auth: SECRET, recordingId: RID, html: true, query: {} }))).toBe('not_found');
  });

  it('heads the page with the first page, the start and the metadata once projected; with the id before', async () => {
    const projected = (await service({ details: PROJECTED }).svc.page({ auth: SECRET, recordingId: RID, html: true, query: {} })).html;
    expect(projected).toContain('<title>shop.example.com/cart · 2025-11-28 03:11:05 UTC</title>');
    expect(projected).toContain(
      `<header><h1>shop.example.com/cart · 2025-11-28 03:11:05 UTC</h1><ul><li>1 min 5 s</li><li>2 page views</li><li>plan: pro</li><li>userId: u-42</li><li>id ${RID}</li></ul></header>`,
    );
    expect(projected).not.toContain('SECRET');
    const early = (await service().svc.page({ auth: SECRET, recordingId: RID, html: true, query: {} })).html;
    expect(early).toContain(`<title>Recording ${RID}</title>`);
    expect(early).toContain(`<header><h1>Recording ${RID}</h1></header>`);
  });

  it('refuses a non-HTML Accept on /player only (406), and says Vary: Accept there', async () => {
    const { svc } = service();
    expect(await code(svc.page({ auth: SECRET, recordingId: RID, html: false, accept: 'application/json', query: {} }))).toBe('not_acceptable');
    expect(await code(svc.page({ auth: SECRET, recordingId: RID, html: true, accept: 'application/json', query: {} }))).toBe('ok');
    expect((await svc.page({ auth: SECRET, recordingId: RID, html: false, accept: '*/*', query: {} })).headers.Vary).toBe('Accept');
  });
});

describe('acceptsHtml', () => {
  it.each([
    [undefined, true],
    ['', true],
    ['*/*', true],
    ['text/*', true],
    ['text/html', true],
    ['TEXT/HTML;q=0.1', true],
    ['application/xhtml+xml', false],
    ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', true],
    ['application/json', false],
    ['image/png, text/html;q=0', false],
    ['text/html;q=0, */*', false],
    ['*/*;q=0', false],
    ['text/plain', false],
  ])('%p → %p', (accept, expected) => {
    expect(acceptsHtml(accept)).toBe(expected);
  });
});
