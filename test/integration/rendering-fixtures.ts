// Helpers for rendering.int-spec.ts: a recorded Chromium page, pixel similarity with sharp, and a
// tiny 127.0.0.1 server for the player page, its assets and its events.
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import sharp from 'sharp';
import type { Page } from 'playwright-core';
import type { RrwebEvent } from '../../src/domain/rrweb-event';

export const RECORD_UMD = readFileSync(join(dirname(require.resolve('@rrweb/record')), 'record.umd.min.cjs'), 'utf8');

/** A page with blocks of colour, text, a form field, a toggled panel and a list. */
export function fixtureHtml(trackerUrl: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>Fixture</title><style>
body{margin:0;font-family:sans-serif;background:#f4f6fb;color:#222}
header{background:#2b3a67;color:#fff;padding:16px 24px;font-size:24px}
.cards{display:flex;gap:16px;padding:16px 24px}
.card{flex:1;height:70px;border-radius:8px;background:#fff;border:1px solid #ccd;padding:8px}
.card:nth-child(2){background:#d7f5dd}
#panel{margin:0 24px;height:170px;background:#dcdcdc;font-size:28px;padding:12px;box-sizing:border-box}
#panel.open{background:#ff8c00;color:#fff}
.row{padding:12px 24px;display:flex;gap:12px;align-items:center}
input{font-size:18px;width:280px;padding:4px}
button{font-size:16px;padding:4px 12px}
ul{margin:0 24px;padding:0 20px;font-size:15px;column-count:3}
#tracker{position:absolute;right:0;bottom:0;width:1px;height:1px;opacity:0}
</style></head><body>
<header>Tapedeck fixture page</header>
<div class="cards"><div class="card">Alpha</div><div class="card">Beta</div><div class="card">Gamma</div></div>
<div id="panel">closed</div>
<div class="row"><input id="name" placeholder="Your name" autocomplete="off"><button id="toggle" onclick="var p=document.getElementById('panel');p.classList.toggle('open');p.textContent=p.classList.contains('open')?'open: the panel is orange':'closed'">Toggle</button><button id="add" onclick="var li=document.createElement('li');li.textContent='Item '+(document.querySelectorAll('li').length+1);document.getElementById('list').appendChild(li)">Add</button></div>
<ul id="list"></ul>
<img id="tracker" src="${trackerUrl}" alt="">
</body></html>`;
}

/** Injects @rrweb/record and starts recording into window.__events. */
export async function startRecording(page: Page): Promise<void> {
  await page.addScriptTag({ content: RECORD_UMD });
  await page.evaluate(() => {
    const w = window as unknown as { __events: unknown[]; rrwebRecord: { record: (o: object) => void } };
    w.__events = [];
    w.rrwebRecord.record({ emit: (e: unknown) => w.__events.push(e) });
  });
}

/**
 * Plays the fixture's interactions on a recording page: a moment `before` them, the changes, a
 * moment T (`at`) with its live screenshot, then more changes that must not show in a render at T.
 * `tailMs` is how long the recording goes on afterwards.
 */
export async function playFixture(page: Page, tailMs = 300): Promise<{ before: number; at: number; live: Buffer }> {
  await page.waitForTimeout(150);
  const before = await page.evaluate(() => Date.now());
  await page.waitForTimeout(100);
  await page.fill('#name', 'Ada Lovelace');
  await page.click('#toggle');
  for (let i = 0; i < 5; i++) await page.click('#add');
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await page.mouse.move(0, 0);
  await page.waitForTimeout(300);
  const at = await page.evaluate(() => Date.now());
  const live = await page.screenshot({ type: 'png', caret: 'hide' });
  await page.waitForTimeout(300);
  // After T: none of this may show in a render at T.
  await page.click('#toggle');
  for (let i = 0; i < 4; i++) await page.click('#add');
  await page.fill('#name', 'Grace Hopper');
  await page.waitForTimeout(tailMs);
  // rrweb records changes only: without a last one the recording would end at the fill above, and
  // the tail would not lengthen it.
  await page.evaluate(() => document.body.setAttribute('data-tail', 'end'));
  return { before, at, live };
}

/**
 * Resizes the recorded window to `size` a moment after recording started, then toggles the panel:
 * T (`at`, with its live screenshot) comes after both, and one more change follows T.
 */
export async function playResize(page: Page, size: { width: number; height: number }): Promise<{ at: number; live: Buffer }> {
  await page.waitForTimeout(150);
  await page.setViewportSize(size);
  await page.waitForTimeout(300); // rrweb reports a resize after its throttle
  await page.click('#toggle');
  await page.mouse.move(0, 0);
  await page.waitForTimeout(300);
  const at = await page.evaluate(() => Date.now());
  const live = await page.screenshot({ type: 'png', caret: 'hide' });
  await page.waitForTimeout(300);
  await page.click('#add');
  await page.evaluate(() => document.body.setAttribute('data-tail', 'end'));
  return { at, live };
}

/** A page whose changes animate: a CSS transition, an entrance animation, a transition in a shadow root. */
export const ANIMATED_HTML = `<!doctype html><html><head><meta charset="utf-8"><style>
body{margin:0;font:20px sans-serif}
#slide{width:100px;height:120px;background:#00f;transition:width .4s,background-color .4s}
#slide.on{width:500px;background:#f00}
#toast{height:80px;background:#fc0;opacity:0}
#toast.in{animation:enter .5s forwards}
@keyframes enter{to{opacity:1}}
</style></head><body><div id="slide"></div><div id="toast">Saved</div><div id="host"></div></body></html>`;

/**
 * Records ANIMATED_HTML (already loaded in `page`): sets off every animation, and takes T a second
 * later, when all of them have long finished on the live page.
 */
export async function playAnimated(page: Page): Promise<{ at: number; live: Buffer }> {
  await page.evaluate(() => {
    const root = document.getElementById('host')!.attachShadow({ mode: 'open' });
    root.innerHTML = '<style>p{margin:0;height:80px;background:#00f;transition:background-color .4s}p.on{background:#0f0}</style><p>shadow</p>';
  });
  await startRecording(page);
  await page.waitForTimeout(150);
  await page.evaluate(() => {
    document.getElementById('slide')!.classList.add('on');
    document.getElementById('toast')!.classList.add('in');
    document.getElementById('host')!.shadowRoot!.querySelector('p')!.classList.add('on');
  });
  await page.waitForTimeout(1000);
  const at = await page.evaluate(() => Date.now());
  const live = await page.screenshot({ type: 'png' });
  await page.waitForTimeout(100);
  await page.evaluate(() => document.body.setAttribute('data-tail', 'end'));
  return { at, live };
}

/** About 1000 events on a recording page: the fixture's panel rewritten 990 times (or `changes`), 2 ms apart. */
export async function playBusyFixture(page: Page, changes = 990): Promise<void> {
  await page.evaluate(async (changes) => {
    const panel = document.getElementById('panel')!;
    for (let i = 0; i < changes; i++) {
      panel.textContent = `tick ${i}`;
      if (i % 100 === 0) panel.classList.toggle('open');
      await new Promise((r) => setTimeout(r, 2));
    }
  }, changes);
  await page.waitForTimeout(100);
}

export async function recordedEvents(page: Page): Promise<RrwebEvent[]> {
  return page.evaluate(() => JSON.parse(JSON.stringify((window as unknown as { __events: unknown[] }).__events)));
}

/**
 * Share of pixels whose largest channel difference is at most 8% (20/255), and the mean absolute
 * channel difference as a fraction of 255. Both images are flattened to RGB at the same size.
 */
export async function similarity(a: Buffer, b: Buffer): Promise<{ similarPixels: number; meanAbsDiff: number }> {
  const meta = await sharp(a).metadata();
  const raw = (img: Buffer) => sharp(img).flatten({ background: '#ffffff' }).resize(meta.width, meta.height, { fit: 'fill' }).removeAlpha().raw().toBuffer();
  const [pa, pb] = await Promise.all([raw(a), raw(b)]);
  let similar = 0;
  let total = 0;
  for (let i = 0; i < pa.length; i += 3) {
    const d = Math.max(Math.abs(pa[i] - pb[i]), Math.abs(pa[i + 1] - pb[i + 1]), Math.abs(pa[i + 2] - pb[i + 2]));
    if (d <= 20) similar++;
    total += Math.abs(pa[i] - pb[i]) + Math.abs(pa[i + 1] - pb[i + 1]) + Math.abs(pa[i + 2] - pb[i + 2]);
  }
  return { similarPixels: similar / (pa.length / 3), meanAbsDiff: total / pa.length / 255 };
}

export type Handler = (req: IncomingMessage, res: ServerResponse, url: URL) => void | Promise<void>;

export async function startServer(handler: Handler): Promise<{ server: Server; origin: string }> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    Promise.resolve(handler(req, res, url)).catch((err) => {
      res.statusCode = 500;
      res.end(String(err));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

export const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

/** What the hosted player page shows: its readiness, the replayer's state and the replayed text. */
export const playerState = (page: Page) =>
  page.evaluate(() => {
    const t = (window as unknown as { __tapedeck: { ready: boolean; error?: string; player?: any } }).__tapedeck;
    const r = t.player?.getReplayer();
    const visible = (sel: string) => {
      const el = document.querySelector(sel) as HTMLElement | null;
      return !!el && el.offsetParent !== null && el.getBoundingClientRect().height > 0;
    };
    const status = document.getElementById('status') as HTMLElement | null;
    return {
      ready: t.ready,
      error: t.error,
      playing: r?.service.state.value === 'playing',
      speed: r?.config.speed as number | undefined,
      // The control bar's highlighted speed button (rrweb-player marks it with the class "active").
      activeSpeed: document.querySelector('.rr-controller__btns button.active')?.textContent ?? null,
      time: r?.getCurrentTime() as number,
      header: visible('header'),
      controller: visible('.rr-controller'),
      status: !status || status.hidden ? null : status.textContent,
      replayText: (r?.iframe.contentDocument?.body?.textContent ?? '') as string,
      playerBox: document.querySelector('.rr-player')?.getBoundingClientRect().toJSON() as { x: number; y: number; width: number; height: number } | undefined,
    };
  });
