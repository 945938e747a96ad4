import { AppError } from '../common/app-error';
import { ValidationError } from '../common/validation';
import { loadConfig } from '../config/config';
import { Authenticator, Presented } from './authenticator';
import { PresignScope, sign } from './presign';
import { MemoryKv, memoryNats } from './testing/memory-kv';
import { TenantRegistry } from './tenant-registry';

const RID = '0b0e7f2c-1d2e-4f60-8a9b-0c1d2e3f4a5b';
const OTHER = '1b0e7f2c-1d2e-4f60-8a9b-0c1d2e3f4a5b';
const SECRET = 'signing-secret-0123456789';
const NOW = 1_767_225_600_000;
const cfg = loadConfig({ PRESIGN_MAX_TTL_SECONDS: '3600' });
const recording = { keys: ['secret' as const], presign: 'recording' as const };

let auth: Authenticator;
let registry: TenantRegistry;
let keys: { pub: string; sec: string };

beforeAll(async () => {
  registry = new TenantRegistry(memoryNats(new MemoryKv()));
  await registry.start();
  await registry.createTenant('acme');
  await registry.createTenant('other');
  await registry.createSigningKey('acme', 'k1', SECRET);
  keys = { pub: (await registry.createKey('acme', 'public')).key, sec: (await registry.createKey('acme', 'secret')).key };
  auth = new Authenticator(registry, cfg);
});

function link(scope: PresignScope = { kind: 'recording', recordingId: RID }, expires = NOW / 1000 + 60) {
  return { tenantId: 'acme', expires: String(expires), keyId: 'k1', signature: sign(SECRET, scope, 'acme', expires) } as Record<string, string>;
}
const presented = (query: Record<string, unknown>, recordingId = RID): Presented => ({ query, params: { recordingId } });
function failure(f: () => unknown): string {
  try {
    f();
    return 'accepted';
  } catch (e) {
    return e instanceof AppError ? e.code : e instanceof ValidationError ? `invalid: ${e.issues.map((i) => i.path).join(',')}` : `crash: ${String(e)}`;
  }
}

describe('Authenticator', () => {
  it('says a key in ?token= is taken by ingestion only, and names what to send', () => {
    expect(() => auth.authenticate(recording, presented({ token: keys.sec }), NOW)).toThrow(
      /token query parameter is taken by ingestion only: send Authorization: Bearer/,
    );
    expect(() => auth.authenticate(recording, presented({}), NOW)).toThrow(/^Missing credentials/);
    expect(auth.authenticate({ keys: ['public', 'secret'], queryToken: true }, presented({ token: keys.pub }), NOW)).toMatchObject({ credential: 'public' });
  });

  it('accepts a valid link for its recording only, upper- or lowercase id', () => {
    expect(auth.authenticate(recording, presented(link()), NOW)).toMatchObject({ tenantId: 'acme', credential: 'presigned' });
    expect(failure(() => auth.authenticate(recording, presented(link(), RID.toUpperCase()), NOW))).toBe('accepted');
    expect(failure(() => auth.authenticate(recording, presented(link(), OTHER), NOW))).toBe('forbidden');
  });

  it.each([
    ['tenantId', 'other'],
    ['tenantId', 'acme.k1'],
    ['expires', String(NOW / 1000 + 61)],
    ['expires', '1e3'],
    ['keyId', 'k2'],
    ['signature', '0'.repeat(64)],
    ['signature', ''],
  ])('refuses a link whose %s was changed to %p (403)', (name, value) => {
    expect(failure(() => auth.authenticate(recording, presented({ ...link(), [name]: value }), NOW))).toBe('forbidden');
  });

  it.each(['tenantId', 'expires', 'keyId', 'signature'])('refuses a link that repeats %s, even with the right value first (400 naming it)', (name) => {
    const l = link();
    expect(failure(() => auth.authenticate(recording, presented({ ...l, [name]: [l[name], l[name]] }), NOW))).toBe(`invalid: ${name}`);
    expect(failure(() => auth.authenticate(recording, presented({ ...l, [name]: [l[name], '0'] }), NOW))).toBe(`invalid: ${name}`);
  });

  it('refuses expired links and links beyond the maximum lifetime (403)', () => {
    expect(failure(() => auth.authenticate(recording, presented(link(undefined, NOW / 1000 - 1)), NOW))).toBe('forbidden');
    expect(failure(() => auth.authenticate(recording, presented(link(undefined, NOW / 1000 + 3601)), NOW))).toBe('forbidden');
    expect(failure(() => auth.authenticate(recording, presented(link(undefined, NOW / 1000 + 3600)), NOW))).toBe('accepted');
  });

  it('verifies the signature over expires exactly as written in the query, leading zeros included', () => {
    const at = NOW / 1000 + 60;
    const padded = (signedExpires: string, written = `0${at}`) => ({
      ...link(),
      expires: written,
      signature: sign(SECRET, { kind: 'recording', recordingId: RID }, 'acme', signedExpires),
    });
    expect(failure(() => auth.authenticate(recording, presented(padded(`0${at}`)), NOW))).toBe('accepted');
    expect(failure(() => auth.authenticate(recording, presented(padded(`00${at}`, `00${at}`)), NOW))).toBe('accepted');
    expect(failure(() => auth.authenticate(recording, presented(padded(String(at))), NOW))).toBe('forbidden');
    // The other checks read the value: still expired, or too long-lived, with zeros in front.
    expect(failure(() => auth.authenticate(recording, presented(padded(`0${NOW / 1000 - 1}`, `0${NOW / 1000 - 1}`)), NOW))).toBe('forbidden');
    expect(failure(() => auth.authenticate(recording, presented(padded(`0${NOW / 1000 + 3601}`, `0${NOW / 1000 + 3601}`)), NOW))).toBe('forbidden');
  });

  it('reads the signature in either letter case, and nothing but 64 hex digits', () => {
    const l = link();
    const mixed = l.signature.replace(/[a-f]/g, (c, i: number) => (i % 2 ? c.toUpperCase() : c));
    expect(mixed).not.toBe(l.signature);
    for (const signature of [l.signature, l.signature.toUpperCase(), mixed]) {
      expect(failure(() => auth.authenticate(recording, presented({ ...l, signature }), NOW))).toBe('accepted');
    }
    // Not hex, or not 64 of them, even where lowercasing would make it so (the Kelvin sign K is "k").
    for (const signature of [`${l.signature} `, `${l.signature}0`, l.signature.slice(1), l.signature.replace(/[a-f]/, 'g'), `${l.signature.slice(1)}\u212a`]) {
      expect(failure(() => auth.authenticate(recording, presented({ ...l, signature }), NOW))).toBe('forbidden');
    }
  });

  it('does not let a link open a route without presigned access (401)', () => {
    expect(failure(() => auth.authenticate({ keys: ['secret'] }, presented(link()), NOW))).toBe('unauthorized');
  });

  it('lets a replay link open its replay only', () => {
    const scope: PresignScope = { kind: 'replay', groupingProp: 'user', replayValue: 'a b' };
    const p = (replayValue: string): Presented => ({ query: link(scope), params: { groupingProp: 'user', replayValue } });
    expect(failure(() => auth.authenticate({ keys: ['secret'], presign: 'replay' }, p('a b'), NOW))).toBe('accepted');
    expect(failure(() => auth.authenticate({ keys: ['secret'], presign: 'replay' }, p('a c'), NOW))).toBe('forbidden');
    expect(failure(() => auth.authenticate(recording, { query: link(scope), params: { recordingId: RID } }, NOW))).toBe('forbidden');
  });

  it('does not let a replay link open the replay whose key and value split the signed string elsewhere', () => {
    // "GET /replays/userId/x/y …" signs userId = "x/y" and "userId/x" = "y" alike: a key with a
    // slash cannot be told apart, so links never open it (as the CLI, values may hold slashes).
    const replay = { keys: ['secret' as const], presign: 'replay' as const };
    const at = (groupingProp: string, replayValue: string, signed: PresignScope): Presented => ({ query: link(signed), params: { groupingProp, replayValue } });
    const valueWithSlash: PresignScope = { kind: 'replay', groupingProp: 'userId', replayValue: 'x/y' };
    expect(failure(() => auth.authenticate(replay, at('userId', 'x/y', valueWithSlash), NOW))).toBe('accepted');
    expect(failure(() => auth.authenticate(replay, at('userId/x', 'y', valueWithSlash), NOW))).toBe('forbidden');
    expect(failure(() => auth.authenticate(replay, at('userId/x', 'y', { kind: 'replay', groupingProp: 'userId/x', replayValue: 'y' }), NOW))).toBe(
      'forbidden',
    );
  });

  it('refuses a public key on a read route (401) and accepts the secret key', () => {
    expect(failure(() => auth.authenticate(recording, { authorization: `Bearer ${keys.pub}`, query: {}, params: {} }))).toBe('unauthorized');
    expect(failure(() => auth.authenticate(recording, { authorization: `Bearer ${keys.sec}`, query: {}, params: {} }))).toBe('accepted');
  });

  it('lets a link open its resource when a key that cannot read it, or another scheme, comes along', () => {
    const alongside = (authorization: string, query = link(), recordingId = RID): Presented => ({ authorization, query, params: { recordingId } });
    for (const header of [`Bearer ${keys.pub}`, 'Bearer public_key_svc_unknown', 'Basic dXNlcjpwYXNz']) {
      expect(auth.authenticate(recording, alongside(header), NOW)).toMatchObject({ tenantId: 'acme', credential: 'presigned' });
      // Still only its own resource, and still refused when expired.
      expect(failure(() => auth.authenticate(recording, alongside(header, link(), OTHER), NOW))).toBe('forbidden');
      expect(failure(() => auth.authenticate(recording, alongside(header, link(undefined, NOW / 1000 - 1)), NOW))).toBe('forbidden');
    }
    // A key that may read the route is used as the key (its tenant, its rate limit).
    expect(auth.authenticate(recording, alongside(`Bearer ${keys.sec}`), NOW)).toMatchObject({ credential: 'secret' });
    // Where links do not open the route, the key decides as before.
    expect(failure(() => auth.authenticate({ keys: ['secret'] }, alongside(`Bearer ${keys.pub}`), NOW))).toBe('unauthorized');
    expect(failure(() => auth.authenticate({ keys: ['secret'] }, alongside('Basic dXNlcjpwYXNz'), NOW))).toBe('unauthorized');
  });

  it('refuses a repeated ?token= with a 400 that says so, whichever value comes first, and never repeats the keys', () => {
    const ingest = { keys: ['public' as const, 'secret' as const], queryToken: true };
    for (const token of [
      [keys.pub, keys.pub],
      [keys.pub, 'public_key_svc_unknown'],
      ['public_key_svc_unknown', keys.pub],
    ]) {
      for (const authorization of [undefined, `Bearer ${keys.pub}`]) {
        const err = (() => {
          try {
            auth.authenticate(ingest, { authorization, query: { token }, params: { recordingId: RID } }, NOW);
          } catch (e) {
            return e as Error;
          }
        })();
        expect(err).toBeInstanceOf(ValidationError);
        expect(err?.message).toBe('Invalid query: token: must be given once');
        expect(JSON.stringify((err as ValidationError).issues)).not.toContain('key_svc');
      }
    }
    // Once is a key as before; where the route takes no ?token=, it is refused as before (401).
    expect(auth.authenticate(ingest, presented({ token: keys.pub }), NOW)).toMatchObject({ credential: 'public' });
    expect(failure(() => auth.authenticate(recording, presented({ token: [keys.sec, keys.sec] }), NOW))).toBe('unauthorized');
  });

  it('never repeats a presented key or signature in its messages', () => {
    const sig = link().signature.replace(/^./, (c) => (c === 'a' ? 'b' : 'a'));
    for (const p of [
      { authorization: `Bearer ${keys.sec}x`, query: {}, params: {} },
      { authorization: `Basic ${keys.sec}`, query: {}, params: {} },
      presented({ ...link(), signature: sig }),
    ]) {
      try {
        auth.authenticate(recording, p, NOW);
      } catch (e) {
        expect((e as Error).message).not.toContain(keys.sec);
        expect((e as Error).message).not.toContain(sig);
      }
    }
  });

  it('refuses every credential of a suspended or deleting tenant with 403 (a bad one stays 401), and accepts them again once resumed', async () => {
    const ingest = { keys: ['public' as const, 'secret' as const], queryToken: true };
    const tries = () => [
      failure(() => auth.authenticate(ingest, { authorization: `Bearer ${keys.pub}`, query: {}, params: {} }, NOW)),
      failure(() => auth.authenticate(ingest, presented({ token: keys.pub }), NOW)),
      failure(() => auth.authenticate(recording, { authorization: `Bearer ${keys.sec}`, query: {}, params: {} }, NOW)),
      failure(() => auth.authenticate(recording, presented(link()), NOW)),
      failure(() => auth.authenticate(recording, presented({ ...link(), signature: '0'.repeat(64) }), NOW)),
      failure(() => auth.authenticate(recording, { authorization: `Bearer ${keys.sec}x`, query: {}, params: {} }, NOW)),
    ];
    expect(tries()).toEqual(['accepted', 'accepted', 'accepted', 'accepted', 'forbidden', 'unauthorized']);
    for (const status of ['suspended', 'deleting'] as const) {
      await registry.setStatus('acme', { status, statusSince: NOW });
      expect(tries()).toEqual(['forbidden', 'forbidden', 'forbidden', 'forbidden', 'forbidden', 'unauthorized']);
    }
    expect(() => auth.authenticate(recording, presented(link()), NOW)).toThrow('Tenant acme is being deleted: its keys and presigned links are refused');
    await registry.setStatus('acme', {});
    expect(tries()).toEqual(['accepted', 'accepted', 'accepted', 'accepted', 'forbidden', 'unauthorized']);
  });
});
