import { AppError } from '../common/app-error';
import type { ApiKeyRecord } from './tenant-records';
import { ConsoleSessions, cookieValue } from './console-sessions';
import type { TenantRegistry } from './tenant-registry';

const secret: ApiKeyRecord = { tenantId: 'acme', kind: 'secret', handle: 'h-secret', hash: 'x', createdAt: 1 } as ApiKeyRecord;
const pub: ApiKeyRecord = { tenantId: 'acme', kind: 'public', handle: 'h-public', hash: 'y', createdAt: 1 } as ApiKeyRecord;

function make() {
  let revoked: (k: { handle: string }) => void = () => undefined;
  let refused: (t: string) => void = () => undefined;
  const registry = {
    authenticate: (k: string) => (k === 'secret_key' ? secret : k === 'public_key' ? pub : null),
    assertServing: () => undefined,
    onKeyRevoked: (l: typeof revoked) => (revoked = l),
    onTenantRefused: (l: typeof refused) => (refused = l),
  } as unknown as TenantRegistry;
  const sessions = new ConsoleSessions(registry, { CONSOLE_SESSION_TTL_SECONDS: 60 });
  return { sessions, revoke: (handle: string) => revoked({ handle }), refuse: (t: string) => refused(t) };
}

const code = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return (e as AppError).code;
  }
  return 'none';
};

describe('ConsoleSessions', () => {
  it('signs in with a private key only, and finds the session by its cookie', () => {
    const { sessions } = make();
    expect(code(() => sessions.signIn('public_key'))).toBe('unauthorized');
    expect(code(() => sessions.signIn('nope'))).toBe('unauthorized');
    const s = sessions.signIn('secret_key', 1000);
    expect(s).toMatchObject({ kind: 'tenant', tenantId: 'acme', keyHandle: 'h-secret', expires: 61_000 });
    expect(JSON.stringify(s)).not.toContain('secret_key');
    expect(sessions.fromRequest(`a=b; td_session=${s.id}`, 'GET', undefined, 2000)?.id).toBe(s.id);
    expect(sessions.fromRequest('a=b', 'GET', undefined)).toBeUndefined();
  });

  it('needs the CSRF token for changes, not for reads', () => {
    const { sessions } = make();
    const s = sessions.signIn('secret_key');
    const cookie = `td_session=${s.id}`;
    expect(code(() => sessions.fromRequest(cookie, 'DELETE', undefined))).toBe('forbidden');
    expect(code(() => sessions.fromRequest(cookie, 'POST', 'wrong'))).toBe('forbidden');
    expect(sessions.fromRequest(cookie, 'POST', s.csrf)?.id).toBe(s.id);
    expect(sessions.fromRequest(cookie, 'HEAD', undefined)?.id).toBe(s.id);
  });

  it('ends sessions at expiry, sign-out, key revocation and tenant refusal', () => {
    const { sessions, revoke, refuse } = make();
    const a = sessions.signIn('secret_key', 0);
    expect(code(() => sessions.fromRequest(`td_session=${a.id}`, 'GET', undefined, 60_000))).toBe('unauthorized');
    const b = sessions.signIn('secret_key');
    sessions.signOut(b.id);
    expect(code(() => sessions.fromRequest(`td_session=${b.id}`, 'GET', undefined))).toBe('unauthorized');
    const c = sessions.signIn('secret_key');
    revoke('h-secret');
    expect(code(() => sessions.fromRequest(`td_session=${c.id}`, 'GET', undefined))).toBe('unauthorized');
    const d = sessions.signIn('secret_key');
    refuse('acme');
    expect(code(() => sessions.fromRequest(`td_session=${d.id}`, 'GET', undefined))).toBe('unauthorized');
    expect(sessions.signInAdmin().kind).toBe('admin');
  });

  it('reads one cookie out of a Cookie header', () => {
    expect(cookieValue('x=1; td_session=abc; y=2', 'td_session')).toBe('abc');
    expect(cookieValue('td_sessionx=abc', 'td_session')).toBeUndefined();
    expect(cookieValue(undefined, 'td_session')).toBeUndefined();
  });
});
