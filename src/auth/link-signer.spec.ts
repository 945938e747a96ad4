import { AppError } from '../common/app-error';
import type { AppConfig } from '../config/config';
import { LinkSigner } from './link-signer';
import { sign } from './presign';
import type { TenantRegistry } from './tenant-registry';
import type { SigningKey } from './tenant-records';

const key: SigningKey = { tenantId: 't1', keyId: 'key-2', secret: 's'.repeat(32), createdAt: 2 };
const registry = (k?: SigningKey) => ({ currentSigningKey: (t: string) => (k && k.tenantId === t ? k : undefined) }) as unknown as TenantRegistry;
const cfg = { PUBLIC_BASE_URL: '', PRESIGN_DEFAULT_TTL_SECONDS: 3600, PRESIGN_MAX_TTL_SECONDS: 600 } as AppConfig;

describe('LinkSigner', () => {
  it("signs with the tenant's current key, one expiry capped by the maximum lifetime", () => {
    const s = new LinkSigner(registry(key), cfg).forTenant('t1', undefined, 1_700_000_000_500);
    expect(s.expires).toBe(1_700_000_000 + 600);
    const q = new URLSearchParams(s.query({ kind: 'recording', recordingId: 'r1' }));
    expect(Object.fromEntries(q)).toEqual({
      tenantId: 't1',
      expires: String(s.expires),
      keyId: 'key-2',
      signature: sign(key.secret, { kind: 'recording', recordingId: 'r1' }, 't1', s.expires),
    });
  });

  it('answers 400 when the tenant has no signing key', () => {
    const signer = new LinkSigner(registry(key), cfg);
    expect(() => signer.forTenant('other')).toThrow(AppError);
    expect(() => signer.forTenant('other')).toThrow(/need a signing key/);
  });

  it("signs one scope with a shorter lifetime when asked (the player's events link)", () => {
    const s = new LinkSigner(registry(key), cfg).sign('t1', { kind: 'recording', recordingId: 'r1' }, 60, 1_700_000_000_000);
    expect(s.expires).toBe(1_700_000_060);
    expect(new URLSearchParams(s.query).get('signature')).toBe(sign(key.secret, { kind: 'recording', recordingId: 'r1' }, 't1', s.expires));
  });
});
