import { sign } from '../auth/presign';
import { expiryFor, recordingScope, replayScope, resourcePath, signedLink } from './presigned-link';

const RID = '0B0E7F2C-1D2E-4F60-8A9B-0C1D2E3F4A5B';

describe('presigned links', () => {
  it('scopes a recording by its canonical lowercase id and refuses non-UUIDs', () => {
    expect(recordingScope(RID)).toEqual({ kind: 'recording', recordingId: RID.toLowerCase() });
    expect(() => recordingScope('nope')).toThrow(/UUID/);
  });

  it('splits a replay argument at the first slash only', () => {
    expect(replayScope('userId/a/b c')).toEqual({ kind: 'replay', groupingProp: 'userId', replayValue: 'a/b c' });
    for (const bad of ['userId', '/x', 'x/', 'p'.repeat(101) + '/v', 'p/' + 'v'.repeat(501)]) expect(() => replayScope(bad)).toThrow(/groupingProp/);
  });

  it('builds paths with encoded values for each resource a signature opens', () => {
    const rec = recordingScope(RID);
    const id = RID.toLowerCase();
    expect(resourcePath(rec)).toBe(`/recordings/${id}/events`);
    expect(resourcePath(rec, 'player')).toBe(`/recordings/${id}/player`);
    expect(resourcePath(rec, 'screenshot')).toBe(`/recordings/${id}/screenshot.png`);
    expect(resourcePath(rec, 'detail')).toBe(`/recordings/${id}`);
    expect(() => resourcePath(rec, 'replay')).toThrow(/recording link opens/);
    const rep = replayScope('user id/a/b?c');
    expect(resourcePath(rep)).toBe('/replays/user%20id/a%2Fb%3Fc');
    expect(resourcePath(rep, 'events')).toBe('/replays/user%20id/a%2Fb%3Fc/events');
    expect(() => resourcePath(rep, 'player')).toThrow(/replay link opens/);
    // A dot-segment value stays a value: encodeURIComponent would leave it for clients to resolve.
    expect(resourcePath(replayScope('./..'), 'events')).toBe('/replays/%2E/%2E%2E/events');
  });

  it('limits the lifetime to PRESIGN_MAX_TTL_SECONDS', () => {
    expect(expiryFor(10_500, 60, 3600)).toBe(70);
    expect(expiryFor(0, 3600, 3600)).toBe(3600);
    for (const ttl of [0, -1, 3601, 1.5, NaN]) expect(() => expiryFor(0, ttl, 3600)).toThrow(/ttl/);
  });

  it('signs the decoded resource, tenant and expiry (the documented string to sign)', () => {
    const scope = replayScope('userId/a b');
    const link = signedLink({ scope, tenantId: 'acme', keyId: 'k1', secret: 's'.repeat(20), expires: 1767225600, baseUrl: 'https://rec.example/' });
    const url = new URL(link.url);
    expect(url.origin + url.pathname).toBe('https://rec.example/replays/userId/a%20b');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      tenantId: 'acme',
      expires: '1767225600',
      keyId: 'k1',
      signature: sign('s'.repeat(20), scope, 'acme', 1767225600),
    });
    // The same HMAC the docs tell customers to compute.
    const { createHmac } = jest.requireActual<typeof import('node:crypto')>('node:crypto');
    expect(url.searchParams.get('signature')).toBe(createHmac('sha256', 's'.repeat(20)).update('GET /replays/userId/a b acme 1767225600').digest('hex'));
  });

  it('matches the test vector published in docs/presigned-links.md', () => {
    const secret = 'x6Yb0Qm3rJ1v9TzL4pK8wN2sD7fH5gAe';
    expect(sign(secret, recordingScope('0b0e7f2c-1d2e-4f60-8a9b-0c1d2e3f4a5b'), 'acme', 1767225600)).toBe(
      '502410634f7b484aec321e565e22cef10c58c37bbb66ec93dd038c8998397ac6',
    );
    expect(sign(secret, replayScope('userId/user 42'), 'acme', 1767225600)).toBe('68d45d9817008d2c1d3732ec56713ede7096977c0eb35542aa7a4ff409325567');
  });
});
