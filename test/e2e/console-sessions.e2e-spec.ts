// Console sessions across instances (docs/console.md): a session made on one instance works on
// another at once (the shared tapedeck_sessions bucket), survives the restart of the instance that
// made it, and a sign-out on any instance ends it everywhere. The bucket never holds the cookie.
import { PrivateStack } from '../harness/private-stack';
import { pollUntil } from '../harness/poll-until';

let stack: PrivateStack;
let a: string;
let b: string;

beforeAll(async () => {
  stack = await PrivateStack.start();
  try {
    a = (await stack.startService('sessions-a')).url;
    b = (await stack.startService('sessions-b')).url;
  } catch (e) {
    await stack.close();
    throw e;
  }
}, 120_000);

afterAll(async () => {
  await stack?.close();
});

async function signIn(base: string): Promise<{ cookie: string; id: string; csrf: string }> {
  const r = await stack.api('/console/session', {
    base,
    key: undefined,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ key: stack.keys.secretKey }),
  });
  expect(r.status).toBe(200);
  const id = /td_session=([^;]*)/.exec(r.headers.get('set-cookie') ?? '')![1];
  return { cookie: `td_session=${id}`, id, csrf: r.json().csrf };
}

const asSession = (base: string, path: string, cookie: string, init: RequestInit = {}) =>
  stack.api(path, { base, key: undefined, ...init, headers: { cookie, ...(init.headers as Record<string, string>) } });

it('works on every instance at once, and a sign-out on one ends it on all', async () => {
  const s = await signIn(a);
  // Asked of the other instance straight away: no wait for its watch.
  expect((await asSession(b, '/recordings?limit=1', s.cookie)).status).toBe(200);
  expect((await asSession(b, '/console/session', s.cookie)).json()).toMatchObject({ kind: 'tenant', tenantId: stack.keys.tenantId, csrf: s.csrf });

  expect((await asSession(b, '/console/session', s.cookie, { method: 'DELETE', headers: { 'x-tapedeck-csrf': s.csrf } })).status).toBe(204);
  await pollUntil(
    () => asSession(a, '/recordings?limit=1', s.cookie),
    (r) => r.status === 401,
    2000,
  );
});

it('survives a restart of the instance that made it; the bucket holds no session id', async () => {
  const s = await signIn(a);
  await stack.services[0].stop();
  const c = (await stack.startService('sessions-c')).url;
  expect((await asSession(c, '/recordings?limit=1', s.cookie)).status).toBe(200);

  const { connect } = await import('nats');
  const nc = await connect({ servers: stack.serviceEnv.NATS_URL });
  try {
    const kv = await nc.jetstream().views.kv('tapedeck_sessions');
    const keys: string[] = [];
    for await (const k of await kv.keys()) keys.push(k);
    expect(keys.length).toBeGreaterThan(0);
    for (const k of keys) {
      expect(k).not.toContain(s.id);
      const e = await kv.get(k);
      expect(e?.string() ?? '').not.toContain(s.id);
    }
  } finally {
    await nc.close();
  }
}, 120_000);
