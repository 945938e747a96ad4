// One tenant's recordings cannot take rendering down for another, against the running service: the
// recording that crashed Chromium (a FullSnapshot with <iframe src="data:text/html,hello"> beside an
// iframe on a loopback port) renders, six of them at once, while tenant B's screenshots of an ordinary
// recording keep succeeding in about their usual time. Before the fix every one of those renders
// answered 503 "Renderer crashed", and B's screenshots failed after 17 s or took 30 s.
import { randomUUID } from 'node:crypto';
import { AddressInfo, createServer } from 'node:net';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../harness/browser';
import { testEnv } from '../harness/env';
import { api, postEvents } from '../harness/http';
import { createTenant, TenantCreds } from './auth-fixtures';
import { getBytes, recordAndIngest, RecordedFixture, snapshotData } from './rendering-e2e-fixtures';

jest.setTimeout(240_000);

let browser: Browser;
let fx: RecordedFixture;
let tenantB: TenantCreds;
const ordinary = randomUUID();
const contacts: string[] = [];
const listener = createServer((socket) => {
  contacts.push('connection');
  socket.on('error', () => undefined);
  socket.destroy();
});

/** Tenant A's crashing recording: the issue's snapshot, a frame on data: and one on the listener. */
function crashing(port: number) {
  const t = Date.now();
  const frame = (id: number, src: string) => ({ type: 2, tagName: 'iframe', attributes: { src }, childNodes: [], id });
  return [
    { type: 4, timestamp: t, data: { href: 'https://example.com/', width: 800, height: 600 } },
    { type: 2, timestamp: t + 1, data: snapshotData({ childNodes: [frame(10, 'data:text/html,hello'), frame(11, `http://127.0.0.1:${port}/x`)] }) },
    { type: 3, timestamp: t + 2, data: { source: 1, positions: [{ x: 1, y: 1, id: 5, timeOffset: 0 }] } },
  ];
}

let offset = 0;
/** One of tenant B's screenshots, at a position not asked before (no image cache): status and milliseconds. */
async function shotB(): Promise<{ status: number; ms: number }> {
  const at = fx.firstTs + 50 + 97 * offset++;
  const started = performance.now();
  const r = await getBytes(`/recordings/${ordinary}/screenshot.png?time=epoch:${Math.min(at, fx.lastTs)}&width=1000&height=500`, { key: tenantB.secretKey });
  return { status: r.status, ms: performance.now() - started };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const metric = async (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec((await api('/metrics', { key: testEnv().secretKey })).text)?.[1]);
const crashesSoFar = () => metric('tapedeck_render_crashes_total');

beforeAll(async () => {
  browser = await launchChromium();
  [fx, tenantB] = await Promise.all([recordAndIngest(browser, { width: 1000, height: 500 }), createTenant('render')]);
  expect((await postEvents(ordinary, fx.events, tenantB.publicKey)).status).toBe(200);
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  await browser?.close();
  listener.close();
});

it("renders the recording that crashed Chromium, six at once, while another tenant's screenshots keep their time", async () => {
  const port = (listener.address() as AddressInfo).port;
  const crashesBefore = await crashesSoFar();
  await shotB(); // B's page is warm
  const alone: number[] = [];
  for (let i = 0; i < 6; i++) {
    const r = await shotB();
    expect(r.status).toBe(200);
    alone.push(r.ms);
  }

  const evil = Array.from({ length: 6 }, () => randomUUID());
  for (const id of evil) expect((await postEvents(id, crashing(port))).status).toBe(200);
  const shotA = (id: string) => getBytes(`/recordings/${id}/screenshot.png`, { key: testEnv().secretKey }).then((r) => r.status);
  const flood = Promise.all(evil.map(shotA));
  const during: { status: number; ms: number }[] = [];
  for (let i = 0; i < 6; i++) during.push(await shotB());
  const statuses = await flood;
  // Once more, now that A's pages are warm: they too must still render.
  const again = await Promise.all(evil.map(shotA));
  console.log(
    `tenant B's screenshots: alone median ${median(alone).toFixed(0)} ms (max ${Math.max(...alone).toFixed(0)}); ` +
      `while A renders the crash recording six at once: ${during.map((r) => `${r.status} ${r.ms.toFixed(0)} ms`).join(', ')}; ` +
      `A's answers ${statuses.join(' ')}, then ${again.join(' ')}`,
  );
  expect(statuses).toEqual(Array(6).fill(200));
  expect(again).toEqual(Array(6).fill(200));
  expect(during.map((r) => r.status)).toEqual(Array(6).fill(200));
  // Sharing two render slots with six cold renders of A costs B some waiting, never a crash's 15-30 s.
  expect(Math.max(...during.map((r) => r.ms))).toBeLessThan(Math.max(4000, 6 * median(alone)));
  expect(median(during.map((r) => r.ms))).toBeLessThan(Math.max(1500, 4 * median(alone)));
  expect(await crashesSoFar()).toBe(crashesBefore);
  // B rendered while A did: in a browser of its own (RENDER_BROWSERS, 2 by default), not A's.
  expect(await metric('tapedeck_render_browsers')).toBe(2);
  expect(contacts).toEqual([]);
});
