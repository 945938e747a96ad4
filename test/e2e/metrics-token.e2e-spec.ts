// METRICS_TOKEN on a stack of its own: /metrics answers only the token (401 otherwise), /readyz
// answers its status code to every probe, ready or not, and its details only with the token; the
// token never reaches the logs. The shared stack, without the variable, stays open as before.
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { api, Res } from '../harness/http';
import { pollUntil } from '../harness/poll-until';
import { PrivateStack } from '../harness/private-stack';
import type { ServiceProcess } from '../harness/stack';

jest.setTimeout(120_000);

const TOKEN = `metrics-${randomBytes(16).toString('hex')}`;
let stack: PrivateStack;
let service: ServiceProcess;

beforeAll(async () => {
  stack = await PrivateStack.start({ env: { METRICS_TOKEN: TOKEN, LOG_LEVEL: 'debug' } });
  service = await stack.startService('metrics-token');
});

afterAll(async () => {
  await stack?.close();
});

const get = (path: string, authorization?: string) => api(path, { base: service.url, headers: authorization === undefined ? {} : { authorization } });
/** No header, malformed ones, near misses, and a key of the stack's tenant (a credential, not this one). */
const wrong = () => [undefined, '', `Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(0, -1)}`, `Basic ${TOKEN}`, TOKEN, `Bearer ${stack.keys.secretKey}`];

describe('with METRICS_TOKEN set', () => {
  it('/metrics answers only Authorization: Bearer <METRICS_TOKEN>, 401 otherwise', async () => {
    for (const authorization of wrong()) {
      const r = await get('/metrics', authorization);
      expect([authorization, r.status]).toEqual([authorization, 401]);
      expect(r.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(r.text).toBe('Missing or invalid metrics token: send Authorization: Bearer <METRICS_TOKEN>');
    }
    const ok = await get('/metrics', `Bearer ${TOKEN}`);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(ok.text).toMatch(/^# HELP tapedeck_/m);
    expect((await get('/metrics', `bearer ${TOKEN}`)).status).toBe(200);
  });

  it('/readyz answers every probe its status, and only the token its details', async () => {
    const short = (r: Res) => {
      expect(r.status).toBe(200);
      const body = r.json();
      expect(Object.keys(body).sort()).toEqual(['checks', 'ready', 'status']);
      expect(body).toMatchObject({ ready: true, status: 'ready' });
      expect(body.checks).toEqual({ nats: { ok: true }, stream: { ok: true }, clickhouse: { ok: true }, migrations: { ok: true } });
    };
    for (const authorization of wrong()) short(await get('/readyz', authorization));
    const full = await get('/readyz', `Bearer ${TOKEN}`);
    expect(full.status).toBe(200);
    expect(full.json()).toMatchObject({ ready: true, checks: { stream: { ok: true, detail: { messages: expect.any(Number) } } }, details: expect.any(Object) });
    // The projector runs here (role all): its lag is among the details.
    expect(Object.keys(full.json().details).length).toBeGreaterThan(0);
  });

  it('never writes the token to the logs, not even at debug level', async () => {
    await get('/metrics', `Bearer ${TOKEN}`);
    await get('/metrics', `Bearer ${TOKEN}x`);
    await get('/readyz', `Bearer ${TOKEN}`);
    await new Promise((r) => setTimeout(r, 300)); // let the lines reach the file
    const log = readFileSync(service.logFile, 'utf8');
    expect(log).toMatch(/metrics/); // per-request lines are there
    expect(log).not.toContain(TOKEN);
    expect(log).not.toContain(TOKEN.slice(8));
  });

  it('/readyz still answers 503 to a probe without the token when the instance is not ready', async () => {
    await stack.killNats();
    const r = await pollUntil(
      () => get('/readyz'),
      (x) => x.status === 503,
      30_000,
      200,
    );
    expect(r.json()).toMatchObject({ ready: false, status: 'not_ready', checks: { nats: { ok: false }, stream: { ok: false } } });
    expect(r.json().details).toBeUndefined();
    expect(r.json().checks.stream.detail).toBeUndefined();
    expect((await get('/readyz', `Bearer ${TOKEN}`)).json()).toMatchObject({ ready: false, checks: { stream: { ok: false, detail: expect.any(String) } } });
  });
});

describe('without METRICS_TOKEN (the shared stack)', () => {
  it('keeps /metrics and the detailed /readyz open, as before', async () => {
    expect((await api('/metrics')).status).toBe(200);
    const ready = await api('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.json()).toMatchObject({ checks: { stream: { detail: expect.any(Object) } }, details: expect.any(Object) });
  });
});
