import { AppError } from '../common/app-error';
import type { ApiKeyRecord } from './tenant-records';
import { ConsoleSessions, cookieValue, SessionStore } from './console-sessions';
import type { TenantRegistry } from './tenant-registry';

const secret: ApiKeyRecord = { tenantId: 'acme', kind: 'secret', handle: 'h-secret', hash: 'x', createdAt: 1 } as ApiKeyRecord;
const pub: ApiKeyRecord = { tenantId: 'acme', kind: 'public', handle: 'h-public', hash: 'y', createdAt: 1 } as ApiKeyRecord;

type Stored = Parameters<SessionStore['put']>[1];

/** The bucket as a map: every watcher hears every change at once, like the KV watch (but sooner). */
class MapStore implements SessionStore {
  readonly entries = new Map<string, Stored>();
  private readonly watchers = new Set<(key: string, s: Stored | undefined) => void>();
  /** When false, watchers hear nothing (a watch that has not delivered yet). */
  deliver = true;
  async put(key: string, s: Stored) {
    this.entries.set(key, s);
    if (this.deliver) for (const w of this.watchers) w(key, s);
  }
  async get(key: string) {
    return this.entries.get(key);
  }
  async delete(key: string) {
    this.entries.delete(key);
    if (this.deliver) for (const w of this.watchers) w(key, undefined);
  }
  async watch(apply: (key: string, s: Stored | undefined) => void) {
    for (const [k, v] of this.entries) apply(k, v);
    this.watchers.add(apply);
    return () => this.watchers.delete(apply);
  }
}

function instance(store?: SessionStore) {
  let revoked: (k: { handle: string }) => void = () => undefined;
  let refused: (t: string) => void = () => undefined;
  const registry = {
    authenticate: (k: string) => (k === 'secret_key' ? secret : k === 'public_key' ? pub : null),
    assertServing: () => undefined,
    onKeyRevoked: (l: typeof revoked) => (revoked = l),
    onTenantRefused: (l: typeof refused) => (refused = l),
  } as unknown as TenantRegistry;
  const sessions = new ConsoleSessions(registry, { CONSOLE_SESSION_TTL_SECONDS: 60, STREAM_REPLICAS: 1 });
  return {
    sessions,
    opened: store ? sessions.open(store) : Promise.resolve(),
    revoke: (handle: string) => revoked({ handle }),
    refuse: (t: string) => refused(t),
  };
}

async function code(f: () => Promise<unknown>): Promise<string> {
  try {
    await f();
  } catch (e) {
    return (e as AppError).code;
  }
  return 'none';
}

const flush = () => new Promise((r) => setImmediate(r));

describe('ConsoleSessions', () => {
  it('signs in with a private key only, and finds the session by its cookie', async () => {
    const { sessions } = instance();
    expect(await code(() => sessions.signIn('public_key'))).toBe('unauthorized');
    expect(await code(() => sessions.signIn('nope'))).toBe('unauthorized');
    const s = await sessions.signIn('secret_key', 1000);
    expect(s).toMatchObject({ kind: 'tenant', tenantId: 'acme', keyHandle: 'h-secret', expires: 61_000 });
    expect(JSON.stringify(s)).not.toContain('secret_key');
    expect((await sessions.fromRequest(`a=b; td_session=${s.id}`, 'GET', undefined, 2000))?.id).toBe(s.id);
    expect(await sessions.fromRequest('a=b', 'GET', undefined)).toBeUndefined();
    expect(await code(() => sessions.fromRequest('td_session=forged', 'GET', undefined))).toBe('unauthorized');
  });

  it('needs the CSRF token for changes, not for reads', async () => {
    const { sessions } = instance();
    const s = await sessions.signIn('secret_key');
    const cookie = `td_session=${s.id}`;
    expect(await code(() => sessions.fromRequest(cookie, 'DELETE', undefined))).toBe('forbidden');
    expect(await code(() => sessions.fromRequest(cookie, 'POST', 'wrong'))).toBe('forbidden');
    expect((await sessions.fromRequest(cookie, 'POST', s.csrf))?.id).toBe(s.id);
    expect((await sessions.fromRequest(cookie, 'HEAD', undefined))?.id).toBe(s.id);
  });

  it('ends sessions at expiry, sign-out, key revocation and tenant refusal', async () => {
    const { sessions, revoke, refuse } = instance();
    const a = await sessions.signIn('secret_key', 0);
    expect(await code(() => sessions.fromRequest(`td_session=${a.id}`, 'GET', undefined, 60_000))).toBe('unauthorized');
    const b = await sessions.signIn('secret_key');
    await sessions.signOut(b.id);
    expect(await code(() => sessions.fromRequest(`td_session=${b.id}`, 'GET', undefined))).toBe('unauthorized');
    const c = await sessions.signIn('secret_key');
    revoke('h-secret');
    expect(await code(() => sessions.fromRequest(`td_session=${c.id}`, 'GET', undefined))).toBe('unauthorized');
    const d = await sessions.signIn('secret_key');
    refuse('acme');
    expect(await code(() => sessions.fromRequest(`td_session=${d.id}`, 'GET', undefined))).toBe('unauthorized');
    expect((await sessions.signInAdmin()).kind).toBe('admin');
  });

  it('shares sessions between instances through the store, which never holds the session id', async () => {
    const store = new MapStore();
    const one = instance(store);
    const two = instance(store);
    await Promise.all([one.opened, two.opened]);
    const s = await one.sessions.signIn('secret_key');
    expect(JSON.stringify([...store.entries])).not.toContain(s.id);
    expect(await two.sessions.fromRequest(`td_session=${s.id}`, 'POST', s.csrf)).toMatchObject({ tenantId: 'acme' });

    // Signed in on one, asked on the other before its watch delivered: read from the store.
    store.deliver = false;
    const t = await one.sessions.signIn('secret_key');
    expect((await two.sessions.fromRequest(`td_session=${t.id}`, 'GET', undefined))?.id).toBe(t.id);
    store.deliver = true;

    // Signed out on one: gone on the other at once.
    await one.sessions.signOut(s.id);
    expect(await code(() => two.sessions.fromRequest(`td_session=${s.id}`, 'GET', undefined))).toBe('unauthorized');

    // A key revoked (every instance hears it from the registry): its sessions leave the store too.
    one.revoke('h-secret');
    two.revoke('h-secret');
    await flush();
    expect(store.entries.size).toBe(0);
    expect(await code(() => one.sessions.fromRequest(`td_session=${t.id}`, 'GET', undefined))).toBe('unauthorized');

    // A new instance loads the live sessions from the store.
    const u = await one.sessions.signIn('secret_key');
    const three = instance(store);
    await three.opened;
    expect(three.sessions.size).toBe(1);
    expect((await three.sessions.fromRequest(`td_session=${u.id}`, 'GET', undefined))?.id).toBe(u.id);
  });

  it('reads one cookie out of a Cookie header', () => {
    expect(cookieValue('x=1; td_session=abc; y=2', 'td_session')).toBe('abc');
    expect(cookieValue('td_sessionx=abc', 'td_session')).toBeUndefined();
    expect(cookieValue(undefined, 'td_session')).toBeUndefined();
  });
});
