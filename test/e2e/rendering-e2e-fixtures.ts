// Helpers for the screenshot and player end-to-end specs: the rendering fixture page recorded in a
// real Chromium (served from 127.0.0.1) and ingested over HTTP with the public key, and presigned
// recording links computed the way a customer's server would.
import { randomUUID } from 'node:crypto';
import type { Browser, BrowserContext } from 'playwright-core';
import { presignQuery, sign } from '../../src/auth/presign';
import type { RrwebEvent } from '../../src/domain/rrweb-event';
import { testEnv } from '../harness/env';
import { postEvents } from '../harness/http';
import { fixtureHtml, playFixture, recordedEvents, startRecording, startServer } from '../integration/rendering-fixtures';

export interface RecordedFixture {
  recordingId: string;
  events: RrwebEvent[];
  viewport: { width: number; height: number };
  /** Live screenshot (PNG) of the page at `at` (epoch ms). */
  live: Buffer;
  at: number;
  /** A moment before the interactions (the panel closed, the list empty). */
  before: number;
  firstTs: number;
  lastTs: number;
  /** A third-party image of the recorded page (its server is gone once recorded). */
  trackerUrl: string;
}

/** The tracker image: a 1×1 PNG. */
export const TRACKER_PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

/** Records the fixture page with interactions around a moment T, and ingests the events. */
export async function recordAndIngest(browser: Browser, viewport = { width: 1000, height: 500 }): Promise<RecordedFixture> {
  let origin = '';
  const { server, origin: o } = await startServer((_req, res, url) => {
    if (url.pathname === '/tracker.png') {
      res.writeHead(200, { 'Content-Type': 'image/png' }).end(TRACKER_PNG);
    } else if (url.pathname === '/fixture') {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(fixtureHtml(`${origin}/tracker.png`));
    } else {
      res.writeHead(404).end();
    }
  });
  origin = o;
  server.unref(); // never what keeps the test process alive
  let context: BrowserContext | undefined;
  try {
    context = await browser.newContext({ viewport, deviceScaleFactor: 1 });
    const page = await context.newPage();
    await page.goto(`${origin}/fixture`);
    await startRecording(page);
    // The long tail makes the recording long enough for offset:1000 in the player.
    const { before, at, live } = await playFixture(page, 1200);
    await page.mouse.move(5, 5);
    const events = await recordedEvents(page);
    const recordingId = randomUUID();
    const res = await postEvents(recordingId, events);
    if (res.status !== 200) throw new Error(`ingestion answered ${res.status}: ${res.text}`);
    const ts = events.map((e) => e.timestamp);
    return { recordingId, events, viewport, live, at, before, firstTs: Math.min(...ts), lastTs: Math.max(...ts), trackerUrl: `${origin}/tracker.png` };
  } finally {
    server.close();
    server.closeAllConnections();
    await context?.close();
  }
}

/** `tenantId=…&expires=…&keyId=…&signature=…` for a recording of the bootstrap tenant. */
export function presignedQuery(recordingId: string, expires = Math.floor(Date.now() / 1000) + 600): string {
  const e = testEnv();
  const signature = sign(e.signingSecret, { kind: 'recording', recordingId }, e.tenantId, expires);
  return presignQuery({ tenantId: e.tenantId, expires, keyId: e.signingKeyId, signature });
}

/** The same link with one hex digit of the signature changed. */
export function tampered(query: string): string {
  const p = new URLSearchParams(query);
  const s = p.get('signature')!;
  p.set('signature', (s[0] === 'a' ? 'b' : 'a') + s.slice(1));
  return p.toString();
}

export const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Format of image bytes by their magic number. */
export function magicFormat(b: Buffer): 'png' | 'jpeg' | 'webp' | 'unknown' {
  if (b.subarray(0, 8).equals(PNG_MAGIC)) return 'png';
  if (b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'jpeg';
  if (b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP') return 'webp';
  return 'unknown';
}

/** GET as bytes (fetch), with optional Bearer key. */
export async function getBytes(path: string, init: { key?: string; headers?: Record<string, string>; base?: string } = {}) {
  const headers = new Headers(init.headers);
  if (init.key) headers.set('authorization', `Bearer ${init.key}`);
  const r = await fetch((init.base ?? testEnv().baseUrl) + path, { headers });
  const body = Buffer.from(await r.arrayBuffer());
  return { status: r.status, headers: r.headers, body, text: body.toString('utf8') };
}

/** A FullSnapshot's data: an html document whose body has these attributes and children (ids 1-5 used). */
export function snapshotData(body: { attributes?: Record<string, string>; childNodes?: unknown[] }) {
  return {
    node: {
      type: 0,
      id: 1,
      childNodes: [
        {
          type: 2,
          tagName: 'html',
          attributes: {},
          id: 3,
          childNodes: [
            { type: 2, tagName: 'head', attributes: {}, childNodes: [], id: 4 },
            { type: 2, tagName: 'body', attributes: body.attributes ?? {}, childNodes: body.childNodes ?? [], id: 5 },
          ],
        },
      ],
    },
    initialOffset: { left: 0, top: 0 },
  };
}
