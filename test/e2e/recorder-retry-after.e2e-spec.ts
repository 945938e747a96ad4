// Our recorder in Chromium against a tenant over its ingestion rate (#32, docs/recorder.md): the
// service refuses batch frames with an error frame (429, retryAfter); the recorder sends nothing,
// on the socket or over HTTP, until that time is up, then resends the refused batch with its id,
// and in the end every recorded event is stored once.
import { randomBytes } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../harness/browser';
import { testEnv } from '../harness/env';
import { api } from '../harness/http';
import { pollUntil } from '../harness/poll-until';
import { PageServer } from '../harness/page-server';

jest.setTimeout(120_000);

const admin = async (method: string, path: string, body: unknown, status: number) => {
  const r = await api(`/admin${path}`, {
    method,
    key: testEnv().adminToken,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (r.status !== status) throw new Error(`${method} ${path}: ${r.status} ${r.text}`);
  return r.json<{ key?: string }>();
};

/** A page that changes itself ten times a second for `ms`, recorded by our recorder over WebSocket. */
const busyPage = (serverUrl: string, publicKey: string, ms: number) => `<!doctype html><html><body><div id="log"></div>
<script src="${serverUrl}/sdk/recorder.js" data-public-key="${publicKey}" data-server-url="${serverUrl}"></script>
<script>
const started = Date.now();
const t = setInterval(() => {
  const p = document.createElement('p');
  p.textContent = 'row ' + (Date.now() - started);
  document.getElementById('log').appendChild(p);
  if (Date.now() - started > ${ms}) clearInterval(t);
}, 100);
</script></body></html>`;

describe('the recorder over a tenant’s ingestion rate', () => {
  let browser: Browser;
  let pages: PageServer;
  let tenant: { publicKey: string; secretKey: string };

  beforeAll(async () => {
    const tenantId = `retry_${randomBytes(4).toString('hex')}`;
    await admin('POST', '/tenants', { id: tenantId }, 201);
    const publicKey = (await admin('POST', `/tenants/${tenantId}/keys`, { kind: 'public' }, 201)).key!;
    const secretKey = (await admin('POST', `/tenants/${tenantId}/keys`, { kind: 'secret' }, 201)).key!;
    // About ten events a second recorded, three stored.
    await admin('PATCH', `/tenants/${tenantId}/limits`, { ingestEventsPerSecond: 3 }, 200);
    tenant = { publicKey, secretKey };
    browser = await launchChromium();
    pages = await PageServer.start({ '/busy': () => busyPage(testEnv().baseUrl, publicKey, 4000) });
  });

  afterAll(async () => {
    await browser?.close();
    await pages?.close();
  });

  it('waits each error frame’s retryAfter before sending again, and loses nothing', async () => {
    const page = await browser.newPage();
    const log: { at: number; kind: 'batch' | 'error' | 'post'; batch?: string; retryAfter?: number }[] = [];
    page.on('websocket', (ws) => {
      ws.on('framesent', (f) => {
        const frame = JSON.parse(String(f.payload)) as { type: string; batch?: string };
        if (frame.type === 'batch') log.push({ at: Date.now(), kind: 'batch', batch: frame.batch });
      });
      ws.on('framereceived', (f) => {
        const frame = JSON.parse(String(f.payload)) as { type: string; status?: number; batch?: string; retryAfter?: number };
        if (frame.type === 'error' && frame.status === 429) log.push({ at: Date.now(), kind: 'error', batch: frame.batch, retryAfter: frame.retryAfter });
      });
    });
    page.on('request', (r) => {
      if (r.method() === 'POST' && r.url().includes('/events')) log.push({ at: Date.now(), kind: 'post' });
    });
    await page.goto(`${pages.url}/busy`);
    const id = await page.evaluate(() => (window as any).Tapedeck.getRecordingId() as string);
    // The page stops changing after 4 s; then everything recorded must end up acknowledged.
    await page.waitForTimeout(4500);
    const stats = await pollUntil(
      () =>
        page.evaluate(
          () => (window as any).Tapedeck.stats() as { pending: number; eventsRecorded: number; eventsAcked: number; dropped: number; lost: number },
        ),
      (s) => s.pending === 0 && s.eventsAcked === s.eventsRecorded,
      90_000,
      250,
    );
    expect(stats).toMatchObject({ dropped: 0, lost: 0 });

    const errors = log.filter((e) => e.kind === 'error');
    expect(errors.length).toBeGreaterThan(0);
    for (const e of errors) {
      expect(e.retryAfter).toBeGreaterThanOrEqual(1);
      // Nothing goes out while the wait lasts (frames already on their way before it are let be).
      const until = e.at + e.retryAfter! * 1000 - 150;
      const during = log.filter((x) => x.kind !== 'error' && x.at > e.at + 100 && x.at < until);
      expect(during).toEqual([]);
      // And the refused batch goes again, with its id.
      expect(log.some((x) => x.kind === 'batch' && x.batch === e.batch && x.at > e.at)).toBe(true);
    }

    // Everything acknowledged reads back once, every sequenceId but the first: the recording-meta
    // event, which becomes metadata and is not returned.
    const expected = Array.from({ length: stats.eventsAcked - 1 }, (_, i) => i + 2);
    const events = await pollUntil(
      async () => {
        const r = await api(`/recordings/${id}/events`, { key: tenant.secretKey });
        return r.status === 200 ? r.json<{ sequenceId: number }[]>() : [];
      },
      (e) => e.length >= expected.length,
      15_000,
    );
    expect(events.map((e) => e.sequenceId).sort((a, b) => a - b)).toEqual(expected);
    await page.close();
  });
});
