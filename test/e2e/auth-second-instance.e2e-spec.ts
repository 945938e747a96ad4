// A second running instance (API role, debug logging, no admin token): keys and revocations made
// through the first instance's admin API take effect there within a second; its admin API is off;
// and no presented key, token or signature reaches any service log.
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';
import { api, postEvents, sampleEvents } from '../harness/http';
import { testEnv } from '../harness/env';
import { pollUntil } from '../harness/poll-until';
import { ServiceProcess, startService } from '../harness/stack';
import { admin, fakeKey, nowSeconds, presign, qs, tenantA } from './auth-fixtures';

let second: ServiceProcess;
let rec: string;

beforeAll(async () => {
  const env = testEnv();
  second = await startService({ ...env.serviceEnv, TAPEDECK_ROLE: 'api', LOG_LEVEL: 'debug', TAPEDECK_ADMIN_TOKEN: '' }, env.dir, 'auth-second');
  rec = randomUUID();
  expect((await postEvents(rec, sampleEvents(5))).status).toBe(200);
});

afterAll(async () => {
  await second?.stop();
});

const readOn = (base: string, key: string) => api(`/recordings/${rec}/events`, { base, key });

describe('a second instance', () => {
  it('accepts a key created through the first instance, and refuses it within one second of its revocation', async () => {
    const { tenantId } = tenantA();
    const created = await admin('POST', `/tenants/${tenantId}/keys`, { kind: 'secret' });
    expect(created.status).toBe(201);
    const { key, handle } = created.json<{ key: string; handle: string }>();
    await pollUntil(
      () => readOn(second.url, key),
      (r) => r.status === 200,
      5000,
      20,
    );

    expect((await admin('DELETE', `/tenants/${tenantId}/keys/${handle}`)).status).toBe(204);
    const revokedAt = Date.now();
    expect((await readOn(testEnv().baseUrl, key)).status).toBe(401); // at once on the instance that revoked it
    await pollUntil(
      () => readOn(second.url, key),
      (r) => r.status === 401,
      1000,
      10,
    );
    expect(Date.now() - revokedAt).toBeLessThan(1000);
  });

  it('closes WebSockets opened with a key once it is revoked (1008, docs/websocket.md), on every instance', async () => {
    const { tenantId } = tenantA();
    const { key, handle } = (await admin('POST', `/tenants/${tenantId}/keys`, { kind: 'public' })).json<{ key: string; handle: string }>();
    const sockets = await Promise.all(
      [testEnv().baseUrl, second.url].map(async (base) => {
        await pollUntil(
          () => readOn(base, testEnv().secretKey),
          (r) => r.status === 200,
          5000,
          20,
        );
        const ws = new WebSocket(`${base.replace(/^http/, 'ws')}/recordings/${randomUUID()}/events/ws?token=${key}`);
        const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
        await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
        return { ws, closed };
      }),
    );
    expect((await admin('DELETE', `/tenants/${tenantId}/keys/${handle}`)).status).toBe(204);
    const codes = await Promise.all(sockets.map(({ closed }) => Promise.race([closed, new Promise((r) => setTimeout(() => r('still open'), 3000))])));
    sockets.forEach(({ ws }) => ws.terminate());
    expect(codes).toEqual([1008, 1008]);
  });

  it('has its admin API off (404) when TAPEDECK_ADMIN_TOKEN is unset', async () => {
    for (const token of [testEnv().adminToken, null]) {
      const r = await admin('GET', '/tenants', undefined, { token, base: second.url });
      expect(r.status).toBe(404);
    }
    expect((await admin('POST', '/tenants', { id: 'never' }, { base: second.url })).status).toBe(404);
  });
});

describe('secrets in logs', () => {
  it('are not repeated in answers either, not even in the 404 of an unknown path', async () => {
    const key = fakeKey('secret');
    const link = presign(`/recordings/${rec}`, tenantA());
    const urls = [
      `/recordings/${rec}/events/?${qs(link)}`,
      `/recordings/${rec}/screenshot.PNG?${qs(link)}`,
      `/no-such-path?token=${key}`,
      `/recordings/${rec}/events?token=${key}`,
    ];
    const echoed: string[] = [];
    for (const url of urls) {
      const r = await api(url);
      expect(r.status).toBeGreaterThanOrEqual(400);
      if (r.text.includes(link.signature) || r.text.includes(key)) echoed.push(`${r.status} ${r.text.slice(0, 80)}`);
    }
    expect(echoed).toEqual([]);
  });

  it('never logs a presented key, token or signature, even at debug level', async () => {
    const env = testEnv();
    const { tenantId } = tenantA();
    const wrongKeys = [fakeKey('secret'), fakeKey('public'), `${env.secretKey}x`];
    const wrongAdmin = `${env.adminToken}0`;
    const goodLink = presign(`/recordings/${rec}`, tenantA());
    const badLink = { ...goodLink, signature: goodLink.signature.replace(/^./, (c) => (c === 'a' ? 'b' : 'a')) };
    const expiredLink = presign(`/recordings/${rec}`, tenantA(), nowSeconds() - 10);
    // Names and keys in percent-encoding, which the query parser decodes: credentials all the same.
    const { signature: encodedSignature, ...encodedRest } = presign(`/recordings/${rec}`, tenantA(), nowSeconds() + 301);
    const encodedKey = fakeKey('public').replace(/_/g, '%5F');
    const eventsLink = presign(`/recordings/${rec}`, tenantA(), nowSeconds() + 302); // the player's eventsUrl
    for (const base of [env.baseUrl, second.url]) {
      for (const key of [...wrongKeys, env.publicKey]) expect((await readOn(base, key)).status).toBe(401);
      expect((await readOn(base, env.secretKey)).status).toBe(200);
      for (const key of wrongKeys) {
        expect(
          (
            await api(`/recordings/${rec}/events?token=${encodeURIComponent(key)}`, {
              base,
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: '[]',
            })
          ).status,
        ).toBe(401);
      }
      expect((await api(`/recordings/${rec}/events?${qs(badLink)}`, { base })).status).toBe(403);
      expect((await api(`/recordings/${rec}/events?${qs(expiredLink)}`, { base })).status).toBe(403);
      expect((await api(`/recordings/${rec}/events?${qs(goodLink)}`, { base })).status).toBe(200);
      expect((await api(`/recordings/${rec}/events?${qs(encodedRest)}&%73ignature=${encodedSignature}`, { base })).status).toBe(200);
      expect((await api(`/recordings/${rec}/player.html?${qs(goodLink)}&eventsUrl=${encodeURIComponent(`events?${qs(eventsLink)}`)}`, { base })).status).toBe(
        200,
      );
      expect(
        (await api(`/recordings/${rec}/events?%74oken=${encodedKey}`, { base, method: 'POST', headers: { 'content-type': 'application/json' }, body: '[]' }))
          .status,
      ).toBe(401);
      expect((await api(`/recordings/${rec}/events`, { base, headers: { authorization: `Basic ${env.secretKey}` } })).status).toBe(401);
      expect((await admin('GET', '/tenants', undefined, { token: wrongAdmin, base })).status).toBeGreaterThanOrEqual(401);
      expect((await admin('DELETE', `/tenants/${tenantId}/keys/${wrongKeys[0]}`, undefined, { base })).status).toBeGreaterThanOrEqual(400);
    }
    await new Promise((r) => setTimeout(r, 300)); // let the logs reach their files

    const secrets = [
      ...wrongKeys,
      env.secretKey,
      env.publicKey,
      env.adminToken,
      wrongAdmin,
      env.signingSecret,
      goodLink.signature,
      badLink.signature,
      expiredLink.signature,
      encodedSignature,
      encodedKey,
      eventsLink.signature,
    ];
    const logs = readdirSync(env.dir).filter((n) => n.endsWith('.log'));
    expect(logs.some((n) => n.startsWith('auth-second'))).toBe(true);
    const leaks: string[] = [];
    for (const name of logs) {
      const text = readFileSync(join(env.dir, name), 'utf8');
      for (const s of secrets) if (text.includes(s)) leaks.push(`${name} contains ${s.slice(0, 12)}…`);
    }
    const secondLog = readFileSync(
      join(
        env.dir,
        logs.find((n) => n.startsWith('auth-second'))!,
      ),
      'utf8',
    );
    expect(secondLog).toMatch(/\[redacted\]/); // debug request logs were written, with credentials removed
    expect(leaks).toEqual([]);
  });
});
