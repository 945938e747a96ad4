import type { AuthContext } from '../../auth/auth-context';
import { LinkSigner } from '../../auth/link-signer';
import { presignQuery, PresignScope, sign } from '../../auth/presign';
import type { TenantRegistry } from '../../auth/tenant-registry';
import type { SigningKey } from '../../auth/tenant-records';
import { ValidationError } from '../../common/validation';
import { loadConfig } from '../../config/config';
import { liveEventsUrl, parsePlayerQuery } from './player-params';

describe('parsePlayerQuery', () => {
  it('applies the defaults', () => {
    expect(parsePlayerQuery({})).toEqual({
      controls: true,
      autoplay: false,
      live: false,
      mode: 'standard',
      speed: 1,
      time: { kind: 'offset', value: 0 },
      eventsUrl: undefined,
    });
  });

  it('parses every parameter', () => {
    expect(
      parsePlayerQuery({ controls: '0', autoplay: '1', mode: 'capture', speed: '0.25', time: 'percent:50', eventsUrl: '/recordings/x/events?signature=abc' }),
    ).toEqual({
      controls: false,
      autoplay: true,
      live: false,
      mode: 'capture',
      speed: 0.25,
      time: { kind: 'percent', value: 50 },
      eventsUrl: '/recordings/x/events?signature=abc',
    });
    expect(parsePlayerQuery({ controls: 'false', autoplay: 'true', speed: '4', mode: 'minimal' })).toMatchObject({
      controls: false,
      autoplay: true,
      speed: 4,
      mode: 'minimal',
    });
  });

  it.each([
    ['.5', 0.5],
    ['1.', 1],
    ['0.2500000000000001', 0.2500000000000001],
    ['4.000000', 4],
    ['002', 2],
  ])('reads speed %p as any language prints a number in range', (speed, value) => {
    expect(parsePlayerQuery({ speed }).speed).toBe(value);
  });

  it.each([
    [{ controls: 'yes' }],
    [{ autoplay: 'TRUE' }],
    [{ mode: 'full' }],
    [{ speed: '0.2' }],
    [{ speed: '4.01' }],
    [{ speed: '8' }],
    [{ speed: 'fast' }],
    [{ speed: '-1' }],
    [{ speed: '' }],
    [{ speed: '.' }],
    [{ speed: '0.24999999' }],
    [{ speed: '4.0000001' }],
    [{ speed: '1e0' }],
    [{ speed: ' 1' }],
  ])('%p is a 400', (query) => {
    expect(() => parsePlayerQuery(query)).toThrow(ValidationError);
  });

  it('reads live, and refuses it with a time: a live page opens at the live edge', () => {
    expect(parsePlayerQuery({ live: 'true' }).live).toBe(true);
    expect(parsePlayerQuery({ live: '0', time: 'offset:5' })).toMatchObject({ live: false, time: { kind: 'offset', value: 5 } });
    expect(() => parsePlayerQuery({ live: 'yes' })).toThrow(ValidationError);
    expect(() => parsePlayerQuery({ live: '1', time: 'percent:50' })).toThrow(/^Invalid player query: time: must be absent with live=true/);
    expect(() => parsePlayerQuery({ live: '1', time: '' })).toThrow(/time: must be absent with live=true/);
  });

  it('rejects a bad time with a 400', () => {
    expect(() => parsePlayerQuery({ time: 'offset:x' })).toThrow(/Invalid time/);
  });

  describe('eventsUrl', () => {
    const origin = 'https://tapedeck.example.com';
    const ok = (u: string, o?: string) => parsePlayerQuery({ eventsUrl: u }, o).eventsUrl;

    it.each([
      ['/recordings/a/events', '/recordings/a/events'],
      ['/recordings/a/events?expires=1&signature=x#y', '/recordings/a/events?expires=1&signature=x#y'],
      ['events', 'events'],
      ['./events?x=1', './events?x=1'],
      ['../a/events', '../a/events'],
    ])('accepts the relative URL %p', (u, expected) => {
      expect(ok(u)).toBe(expected);
      expect(ok(u, origin)).toBe(expected);
    });

    it('accepts an absolute URL of the same origin, as a path', () => {
      expect(ok('https://tapedeck.example.com/recordings/a/events?s=1', origin)).toBe('/recordings/a/events?s=1');
      expect(ok('https://TAPEDECK.example.com:443/x', origin)).toBe('/x');
    });

    it.each([
      'https://evil.example.com/events',
      'http://tapedeck.example.com/events',
      'https://tapedeck.example.com:8443/events',
      'https://tapedeck.example.com.evil.com/events',
      '//evil.example.com/events',
      '///evil.example.com/events',
      '/\\evil.example.com/events',
      '\\\\evil.example.com/events',
      ' //evil.example.com',
      '\t//evil.example.com',
      'javascript:alert(1)',
      'JaVaScRiPt:alert(1)',
      'data:application/json,[]',
      'blob:https://tapedeck.example.com/uuid',
      'file:///etc/passwd',
      'https:evil.example.com',
      'https://user@evil.example.com',
      '',
    ])('refuses %p with a 400', (u) => {
      expect(() => parsePlayerQuery({ eventsUrl: u }, origin)).toThrow(ValidationError);
    });

    it('refuses every absolute URL when the request origin is unknown', () => {
      expect(() => parsePlayerQuery({ eventsUrl: 'https://tapedeck.example.com/x' })).toThrow(ValidationError);
      expect(() => parsePlayerQuery({ eventsUrl: 'http://same-origin.invalid/x' })).toThrow(ValidationError);
    });
  });
});

describe('eventsUrl on a page opened with a presigned link', () => {
  const RID = '0b0e7f2c-1d2e-4f60-8a9b-0c1d2e3f4a5b';
  const OTHER = '1b0e7f2c-1d2e-4f60-8a9b-0c1d2e3f4a5b';
  const NOW_S = Math.floor(Date.now() / 1000);
  const keys: SigningKey[] = [
    { tenantId: 'acme', keyId: 'k1', secret: 'a'.repeat(32), createdAt: 1 },
    { tenantId: 'acme', keyId: 'k2', secret: 'b'.repeat(32), createdAt: 2 },
    { tenantId: 'evil', keyId: 'k1', secret: 'c'.repeat(32), createdAt: 1 },
  ];
  const registry = {
    signingKey: (t: string, k: string) => keys.find((x) => x.tenantId === t && x.keyId === k),
    currentSigningKey: () => undefined,
  } as unknown as TenantRegistry;
  const links = (base = '') => new LinkSigner(registry, loadConfig({ PUBLIC_BASE_URL: base }));
  const link = (o: { tenantId?: string; keyId?: string; recordingId?: string; scope?: PresignScope; expires?: number } = {}) => {
    const { tenantId = 'acme', keyId = 'k1', recordingId = RID, expires = NOW_S + 300 } = o;
    const secret = keys.find((k) => k.tenantId === tenantId && k.keyId === keyId)!.secret;
    const scope = o.scope ?? { kind: 'recording', recordingId };
    return presignQuery({ tenantId, expires, keyId, signature: sign(secret, scope, tenantId, expires) });
  };
  const page = link();
  const presigned: AuthContext = { tenantId: 'acme', credential: 'presigned', scope: { kind: 'recording', recordingId: RID }, expires: NOW_S + 300 };
  const parse = (eventsUrl: string, o: { auth?: AuthContext; base?: string; origin?: string } = {}) =>
    parsePlayerQuery({ ...Object.fromEntries(new URLSearchParams(page)), eventsUrl }, o.origin, {
      recordingId: RID,
      auth: o.auth ?? presigned,
      links: links(o.base),
    }).eventsUrl;
  const refusal = (eventsUrl: string, o: { base?: string; origin?: string } = {}) => {
    try {
      parse(eventsUrl, o);
      return 'accepted';
    } catch (e) {
      return e instanceof ValidationError ? e.message : `crash: ${String(e)}`;
    }
  };

  it.each([
    [`events?${page}`],
    [`./events?${page}#t`],
    [`/recordings/${RID}/events?${page}`],
    [`../${RID.toUpperCase()}/events?${page}`],
    [`../../recordings/${RID}/events?x=1&${page}`],
    // Another valid link of this recording and tenant: another expiry, another key.
    [`events?${link({ expires: NOW_S + 60 })}`],
    [`/recordings/${RID}/events?${link({ keyId: 'k2' })}`],
    [`events?${link({ expires: NOW_S + 61 }).replace(/signature=(\w+)/, (_, sig: string) => `signature=${sig.toUpperCase()}`)}`],
  ])('accepts %s', (eventsUrl) => {
    expect(refusal(eventsUrl)).toBe('accepted');
  });

  it('accepts an absolute URL of this origin, under PUBLIC_BASE_URL too', () => {
    const origin = 'https://rec.example.com';
    expect(parse(`${origin}/recordings/${RID}/events?${page}`, { origin })).toBe(`/recordings/${RID}/events?${page}`);
    expect(refusal(`${origin}/tapedeck/recordings/${RID}/events?${page}`, { origin, base: `${origin}/tapedeck/` })).toBe('accepted');
    expect(refusal(`${origin}/other/recordings/${RID}/events?${page}`, { origin, base: `${origin}/tapedeck` })).toMatch(/must be this recording's events/);
  });

  it.each([
    ['another tenant, another recording', `/recordings/${OTHER}/events?${link({ tenantId: 'evil', recordingId: OTHER })}`, /must be this recording's events/],
    ['another tenant, the same recording id', `events?${link({ tenantId: 'evil' })}`, /of this page's tenant/],
    ['another recording of the tenant', `../${OTHER}/events?${link({ recordingId: OTHER })}`, /must be this recording's events/],
    ["another recording's link on this recording", `events?${link({ recordingId: OTHER })}`, /signature is invalid/],
    ['a replay', `/replays/user/u1/events?${link({ scope: { kind: 'replay', groupingProp: 'user', replayValue: 'u1' } })}`, /this recording's events/],
    ['no link', 'events', /incomplete/],
    ['a repeated parameter', `events?${page}&signature=${'0'.repeat(64)}`, /repeats a parameter/],
    ['an expired link', `events?${link({ expires: NOW_S - 1 })}`, /expired/],
    ['a tampered link', `events?${page.replace(/expires=\d+/, `expires=${NOW_S + 301}`)}`, /signature is invalid/],
    ['another path', `/healthz?${page}`, /this recording's events/],
    ['the page itself', `player?${page}`, /this recording's events/],
    ['an encoded slash', `../${RID}%2F..%2F${OTHER}/events?${page}`, /this recording's events/],
    ['a trailing slash', `events/?${page}`, /this recording's events/],
  ])('refuses %s with a 400 naming eventsUrl', (_what, eventsUrl, reason) => {
    const message = refusal(eventsUrl);
    expect(message).toMatch(/^Invalid player query: eventsUrl: /);
    expect(message).toMatch(reason);
    expect(message).not.toMatch(/[0-9a-f]{64}/i);
  });

  it('keeps the same-origin rules for the private key, and holds it to no link', () => {
    const secret: AuthContext = { tenantId: 'acme', credential: 'secret', keyHandle: 'h' };
    const elsewhere = `/recordings/${OTHER}/events?${link({ tenantId: 'evil', recordingId: OTHER })}`;
    expect(parse(elsewhere, { auth: secret })).toBe(elsewhere);
    expect(parse('/replays/user/u1/events', { auth: secret })).toBe('/replays/user/u1/events');
    expect(() => parse('https://evil.example.com/e', { auth: secret })).toThrow(ValidationError);
  });
});

describe('liveEventsUrl', () => {
  it.each([
    ['events?tenantId=acme&expires=02000000000&keyId=k1&signature=ab', 'events?tenantId=acme&expires=02000000000&keyId=k1&signature=ab&live=true'],
    ['/recordings/a/events', '/recordings/a/events?live=true'],
    ['events?live=false&x=%2F#frag', 'events?x=%2F&live=true'],
    ['events?live&liveliness=1&live=1', 'events?liveliness=1&live=true'],
    ['./events?', './events?live=true'],
  ])('%s → %s (the link as written, live set once)', (url, expected) => {
    expect(liveEventsUrl(url)).toBe(expected);
  });
});
