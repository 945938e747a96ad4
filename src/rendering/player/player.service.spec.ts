import type { AuthContext } from '../../auth/auth-context';
import type { LinkSigner } from '../../auth/link-signer';
import { AppError } from '../../common/app-error';
import { loadConfig } from '../../config/config';
import type { PlayerAssets } from './player-assets';
import { acceptsHtml, PLAYER_EVENTS_TTL_SECONDS, PlayerService, playerTitle } from './player.service';
import type { EventStore } from '../../domain/event-store';
import { RecordingEventsService } from '../../recordings/recording-events.service';
import { RecordingRenderSource } from '../shared/recording-render-source';

const RID = '0b0e7f2c-1d2e-4f60-8a9b-0c1d2e3f4a5b';
const SECRET: AuthContext = { tenantId: 'acme', credential: 'secret', keyHandle: 'h' };
const PRESIGNED: AuthContext = { tenantId: 'acme', credential: 'presigned', scope: { kind: 'recording', recordingId: RID }, expires: 2_000_000_000 };
const LINK = { tenantId: 'acme', expires: '2000000000', keyId: 'k1', signature: 'f'.repeat(64) };

/** The real render source over an event store that holds the recording, or not. */
function renderSource(exists: boolean): RecordingRenderSource {
  const store = { exists: async () => exists } as unknown as EventStore;
  return new RecordingRenderSource(store, new RecordingEventsService(store));
}

function service(o: { exists?: boolean; signingKey?: boolean } = {}) {
  const signed: { ttl?: number }[] = [];
  const signer = {
    sign: (_t: string, _s: unknown, ttl?: number) => {
      if (o.signingKey === false) throw new AppError('bad_request', 'This tenant has no signing key');
      signed.push({ ttl });
      return { query: 'tenantId=acme&expires=1&keyId=k1&signature=' + 'e'.repeat(64), expires: 1 };
    },
  } as unknown as LinkSigner;
  const source = renderSource(o.exists ?? true);
  const assets = { version: 'v1' } as unknown as PlayerAssets;
  const cfg = loadConfig({ PLAYER_FRAME_ANCESTORS: "'self' https://app.example.com" });
  return { svc: new PlayerService(source, signer, assets, cfg), signed };
}

const config = (html: string) => JSON.parse(/id="tapedeck-config">([^<]*)</.exec(html)![1]) as { eventsUrl: string; mode: string; speed: number };
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
    const svc = new PlayerService(renderSource(true), {} as LinkSigner, { version: 'v1' } as unknown as PlayerAssets, cfg);
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

describe('playerTitle', () => {
  const id = '0b5e8a2c-1111-4222-8333-444455556666';
  it.each([
    [undefined, `Recording ${id}`],
    ['events?tenantId=t&expires=1&keyId=k&signature=ab', `Recording ${id}`],
    ['/replays/sessionId/abc%20def/events?signature=ab', 'Replay of sessionId = abc def'],
    ['../../replays/user/u%2F1?x=1', 'Replay of user = u/1'],
    ['/replay?meta[a]=b', 'Replay'],
    ['/recordings/0b5e8a2c-9999-4222-8333-444455556666/events', 'Recording 0b5e8a2c-9999-4222-8333-444455556666'],
  ])('titles eventsUrl %s as %s', (eventsUrl, title) => {
    expect(playerTitle(id, eventsUrl)).toBe(title);
  });
});
