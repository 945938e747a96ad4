// Strict parameters: `token` and `recordingId` given twice are a 400 (JSON, "must be given once"),
// whichever value comes first and even when both are the same, over HTTP (every route taking
// ?token=, the /ingest aliases, the ?recordingId= form of rrweb's clients) and on every WebSocket
// upgrade path: which one counted would depend on who reads the URL (a proxy, a log, the service).
import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';
import { api, sampleEvents } from '../harness/http';
import { testEnv } from '../harness/env';

const readEvents = (id: string) => api(`/recordings/${id}/events`, { key: testEnv().secretKey });

const wsBase = () => testEnv().baseUrl.replace(/^http/, 'ws');
/** Status of an upgrade at `url` (101 when it opened), and the body of a refusal. */
const upgradeAt = (url: string) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.once('open', () => (ws.close(), resolve({ status: 101, body: '' })));
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    ws.once('error', reject);
  });

describe('repeated credentials and recording ids', () => {
  it('refuses a repeated token with a 400 that says so, over HTTP and on every upgrade path, whichever key comes first', async () => {
    const [pub, bad] = [testEnv().publicKey, 'public_key_svc_nope_nope_nope_nope'];
    const id = randomUUID();
    const post = (path: string, headers: Record<string, string> = {}) =>
      api(path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(sampleEvents(2)) });
    for (const tokens of [`token=${pub}&token=${bad}`, `token=${bad}&token=${pub}`, `token=${pub}&token=${pub}`, `%74oken=${pub}&token=${pub}`]) {
      const answers = [
        ...(await Promise.all(
          [`/recordings/${id}/events/ws`, `/recordings/${id}/ingest/ws`, '/', '/ws', '/events/ws', '/ingest/ws'].map(async (path) => [
            `upgrade ${path}`,
            await upgradeAt(`${wsBase()}${path}?recordingId=${id}&${tokens}`),
          ]),
        )),
        ...(await Promise.all(
          [`/recordings/${id}/events`, `/recordings/${id}/ingest`, `/recordings/${id}/metadata`, `/?recordingId=${id}&x=1`, `/events?recordingId=${id}`].map(
            async (path) => {
              const r = await post(`${path}${path.includes('?') ? '&' : '?'}${tokens}`);
              return [`POST ${path}`, { status: r.status, body: r.text }];
            },
          ),
        )),
        // With the key in the header too: the route takes ?token=, and it says two things.
        [
          'POST with a Bearer key too',
          await post(`/ingest?recordingId=${id}&${tokens}`, { authorization: `Bearer ${pub}` }).then((r) => ({ status: r.status, body: r.text })),
        ],
      ] as [string, { status: number; body: string }][];
      for (const [what, { status, body }] of answers) {
        expect([tokens, what, status]).toEqual([tokens, what, 400]);
        expect([what, JSON.parse(body).message]).toEqual([what, 'Invalid query: token: must be given once']);
        expect(body).not.toContain('key_svc');
      }
    }
    // Nothing was stored under the id.
    expect((await readEvents(id)).status).toBe(404);
  });

  it("refuses a repeated ?recordingId= with a 400 that says so, over HTTP and on the upgrade (rrweb's clients send it once)", async () => {
    const pub = testEnv().publicKey;
    const [a, b] = [randomUUID(), randomUUID()];
    for (const ids of [`recordingId=${a}&recordingId=${b}`, `recordingId=${a}&recordingId=${a}`, `recordingId=${a}&recordingId=nope`]) {
      for (const path of ['/', '/ws', '/events/ws', '/ingest/ws']) {
        const r = await upgradeAt(`${wsBase()}${path}?${ids}&token=${pub}`);
        expect([ids, path, r.status, JSON.parse(r.body).message]).toEqual([ids, path, 400, 'Invalid query: recordingId: must be given once']);
      }
      for (const path of ['/', '/events', '/ingest']) {
        const r = await api(`${path}?${ids}`, {
          method: 'POST',
          key: pub,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(sampleEvents(2)),
        });
        expect([ids, path, r.status, r.json().message]).toEqual([ids, path, 400, 'Invalid query: recordingId: must be given once']);
      }
    }
    expect((await readEvents(a)).status).toBe(404);
    expect((await readEvents(b)).status).toBe(404);
    // On a path that names the recording, ?recordingId= is no parameter of the route: ignored, as before.
    expect((await upgradeAt(`${wsBase()}/recordings/${randomUUID()}/events/ws?token=${pub}&recordingId=${a}&recordingId=${b}`)).status).toBe(101);
  });
});
