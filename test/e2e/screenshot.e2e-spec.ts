// GET /recordings/{id}/screenshot[.png|.jpeg|.jpg|.webp] against the running service: a page recorded
// in Chromium and ingested over HTTP is rendered at a moment T and compared by pixels with a live
// screenshot taken at T; the spec's validation (400), range (422), format negotiation, size
// derivation, presigned access, authentication and conditional requests are checked.
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { AddressInfo, createServer } from 'node:net';
import sharp from 'sharp';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../harness/browser';
import { testEnv } from '../harness/env';
import { api, postEvents } from '../harness/http';
import { pollUntil } from '../harness/poll-until';
import { alive, descendants } from '../harness/proc';
import { startService } from '../harness/stack';
import { similarity } from '../integration/rendering-fixtures';
import { getBytes, magicFormat, presignedQuery, recordAndIngest, RecordedFixture, snapshotData, tampered } from './rendering-e2e-fixtures';

/** Same thresholds as the renderer's integration test: ≥ 97% of pixels within 20/255 per channel. */
const MIN_SIMILAR_PIXELS = 0.97;
const MAX_MEAN_ABS_DIFF = 0.03;

jest.setTimeout(180_000);

let browser: Browser;
let fx: RecordedFixture;
const secret = () => testEnv().secretKey;
const shot = (suffix: string, query = '', init: { key?: string | null; headers?: Record<string, string> } = {}) =>
  getBytes(`/recordings/${fx.recordingId}/${suffix}${query ? `?${query}` : ''}`, {
    key: init.key === null ? undefined : (init.key ?? secret()),
    headers: init.headers,
  });

beforeAll(async () => {
  browser = await launchChromium();
  fx = await recordAndIngest(browser, { width: 1000, height: 500 });
});

afterAll(async () => {
  await browser?.close();
});

describe('screenshot', () => {
  it('renders the moment T like a live screenshot taken at T', async () => {
    const r = await shot('screenshot.png', `time=epoch:${fx.at}&width=${fx.viewport.width}&height=${fx.viewport.height}`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('image/png');
    expect(await sharp(r.body).metadata()).toMatchObject({ format: 'png', width: 1000, height: 500 });
    const same = await similarity(fx.live, r.body);
    const earlier = await shot('screenshot.png', `time=epoch:${fx.before}&width=1000&height=500`);
    const differs = await similarity(fx.live, earlier.body);
    console.log(
      `screenshot at T: ${(same.similarPixels * 100).toFixed(2)}% similar pixels, mean abs diff ${(same.meanAbsDiff * 100).toFixed(2)}%; ` +
        `before the interactions: ${(differs.similarPixels * 100).toFixed(2)}% similar`,
    );
    expect(same.similarPixels).toBeGreaterThanOrEqual(MIN_SIMILAR_PIXELS);
    expect(same.meanAbsDiff).toBeLessThan(MAX_MEAN_ABS_DIFF);
    expect(differs.similarPixels).toBeLessThan(MIN_SIMILAR_PIXELS); // the comparison tells states apart
  });

  /** A screenshot of a page whose body holds `children` (rrweb's serialised nodes, ids from 10), then `later` events. */
  let lastShotId = '';
  const bodyShot = async (bodyStyle: string, children: unknown[], size = { width: 600, height: 140 }, later: { type: number; data: unknown }[] = []) => {
    const id = (lastShotId = randomUUID());
    const t = Date.now();
    const body = { type: 2, tagName: 'body', attributes: { style: bodyStyle }, childNodes: children, id: 5 };
    const html = {
      type: 2,
      tagName: 'html',
      attributes: {},
      childNodes: [
        {
          type: 2,
          tagName: 'head',
          attributes: {},
          childNodes: [{ type: 2, tagName: 'meta', attributes: { charset: 'utf-8' }, childNodes: [], id: 7 }],
          id: 4,
        },
        body,
      ],
      id: 3,
    };
    const events = [
      { type: 4, timestamp: t, data: { href: 'https://example.com/', ...size } },
      {
        type: 2,
        timestamp: t + 1,
        data: {
          node: { type: 0, childNodes: [{ type: 1, name: 'html', publicId: '', systemId: '', id: 2 }, html], id: 1 },
          initialOffset: { left: 0, top: 0 },
        },
      },
      ...later.map((e, i) => ({ ...e, timestamp: t + 2 + i })),
    ];
    expect((await postEvents(id, events)).status).toBe(200);
    const r = await getBytes(`/recordings/${id}/screenshot.png?time=percent:100&width=${size.width}&height=${size.height}`, { key: secret() });
    expect(r.status).toBe(200);
    return r.body;
  };

  it('reaches no network from a replayed page: prefetch, preconnect and dns-prefetch links go nowhere', async () => {
    // Request interception does not see what Chromium fetches by itself: a recorded
    // <link rel=prefetch href=http://127.0.0.1:…> made the renderer send GETs to internal services
    // (ClickHouse answers queries on GET: another tenant's data could be read, one guess at a time).
    const contacts: string[] = [];
    const listener = createServer((socket) => {
      contacts.push('connection');
      socket.on('data', (d) => contacts.push(String(d).split('\r\n')[0]));
      socket.on('error', () => undefined);
      socket.end('HTTP/1.1 204 No Content\r\n\r\n');
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const port = (listener.address() as AddressInfo).port;
    try {
      const link = (rel: string, href: string, id: number) => ({ type: 2, tagName: 'link', attributes: { rel, href }, childNodes: [], id });
      const children = [
        link('prefetch', `http://127.0.0.1:${port}/prefetch`, 10),
        link('preconnect', `http://127.0.0.1:${port}`, 11),
        link('dns-prefetch', `http://localhost:${port}`, 12),
        link('prefetch', `http://localhost:${port}/by-name`, 13),
        { type: 3, textContent: 'nothing to see', id: 14 },
      ];
      // …and one added later to the head by a mutation.
      const added = {
        type: 3,
        data: {
          source: 0,
          texts: [],
          attributes: [],
          removes: [],
          adds: [{ parentId: 4, nextId: null, node: link('prefetch', `http://127.0.0.1:${port}/mutation`, 20) }],
        },
      };
      await bodyShot('margin:0', children, { width: 300, height: 100 }, [
        added,
        { type: 3, data: { source: 1, positions: [{ x: 1, y: 1, id: 5, timeOffset: 0 }] } },
      ]);
      await new Promise((r) => setTimeout(r, 1500)); // prefetches run after load, on their own
      expect(contacts).toEqual([]);
    } finally {
      listener.close();
    }
  });

  it('draws Chinese, Japanese and Korean text and colour emoji, not empty boxes', async () => {
    const textPage = (text: string) => bodyShot('margin:0;padding:20px;font-size:96px;line-height:1', [{ type: 3, textContent: text, id: 10 }]);
    // Without a font for them, every character is the same empty box: two different texts look alike.
    for (const [a, b] of [
      ['日本語', '中文字'],
      ['한국어', '조선말'],
    ]) {
      const differ = await similarity(await textPage(a), await textPage(b));
      expect([a, b, differ.similarPixels < 0.97]).toEqual([a, b, true]);
    }
    // Colour emoji have saturated pixels; a missing glyph is a grey outline.
    const { data } = await sharp(await textPage('🎉🍎🌊'))
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    let coloured = 0;
    for (let i = 0; i < data.length; i += 3) if (Math.max(data[i], data[i + 1], data[i + 2]) - Math.min(data[i], data[i + 1], data[i + 2]) > 80) coloured++;
    expect(coloured).toBeGreaterThan(500);
  });

  it('renders an image larger than the recorded window at that scale, not enlarged afterwards', async () => {
    const style = 'margin:0;padding:4px;font:16px sans-serif';
    const text = 'Sharp text at three times the size, 0123456789';
    const png = await bodyShot(style, [{ type: 3, textContent: text, id: 10 }], { width: 400, height: 60 });
    expect((await sharp(png).metadata()).width).toBe(400);
    const big = await getBytes(`/recordings/${lastShotId}/screenshot.png?time=percent:100&width=1200&height=180`, { key: secret() });
    expect(big.status).toBe(200);
    // The same page in Chromium at device scale 3 is what a sharp image looks like.
    const ctx = await browser.newContext({ viewport: { width: 400, height: 60 }, deviceScaleFactor: 3 });
    const live = await ctx.newPage();
    await live.setContent(`<!doctype html><html><head><meta charset="utf-8"></head><body style="${style}">${text}</body></html>`);
    const sharpShot = await live.screenshot();
    await ctx.close();
    // Sharpness: of the inked pixels, the share that is solid ink (an enlarged image has soft edges).
    const solid = async (png: Buffer) => {
      const { data } = await sharp(png).greyscale().raw().toBuffer({ resolveWithObject: true });
      let ink = 0;
      let core = 0;
      for (const v of data) {
        if (v >= 224) continue;
        ink++;
        if (v < 64) core++;
      }
      return core / ink;
    };
    const [ours, reference, enlarged] = await Promise.all([
      solid(big.body),
      solid(sharpShot),
      solid(await sharp(png).resize(1200, 180, { kernel: 'lanczos3' }).png().toBuffer()),
    ]);
    console.log(
      `solid share of ink: 3x screenshot ${ours.toFixed(3)}, Chromium at 3x ${reference.toFixed(3)}, the 1x screenshot enlarged ${enlarged.toFixed(3)}`,
    );
    expect(Math.abs(ours - reference)).toBeLessThan(0.05);
    expect(ours - enlarged).toBeGreaterThan(0.1);
  });

  it('keeps the box of a canvas (blank), so what follows it stays where it was', async () => {
    // The replay frame runs no scripts, where a canvas is only its fallback content: an inline box
    // that ignores width and height, so the red block moved up into the canvas's place.
    const png = await bodyShot(
      'margin:0',
      [
        {
          type: 2,
          tagName: 'canvas',
          attributes: { width: '300', height: '120' },
          childNodes: [{ type: 3, textContent: 'Your browser has no canvas', id: 11 }],
          id: 10,
        },
        { type: 2, tagName: 'div', attributes: { style: 'background:#ff0000;height:40px' }, childNodes: [], id: 12 },
      ],
      { width: 400, height: 200 },
    );
    const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const at = (x: number, y: number): number[] => [...data.subarray((y * info.width + x) * 3, (y * info.width + x) * 3 + 3)];
    expect({ inCanvas: at(10, 60), belowIt: at(10, 150) }).toEqual({ inCanvas: [255, 255, 255], belowIt: [255, 0, 0] });
    // The fallback text stays hidden, as on the live page.
    let dark = 0;
    for (let y = 0; y < 120; y++) for (let x = 0; x < 300; x++) if (at(x, y)[0] < 128) dark++;
    expect(dark).toBe(0);
  });

  it("shows the previous page as it ended between a page view's Meta event and its snapshot", async () => {
    // rrweb writes Meta, serialises the page, then writes the FullSnapshot: between the two the
    // replayer had dropped the previous page and had nothing new to show.
    const id = randomUUID();
    const t = Date.now();
    const doc = (colour: string) => snapshotData({ attributes: { style: `margin:0;background:${colour}` } });
    const events = [
      { type: 4, timestamp: t, data: { href: 'https://example.com/one', width: 400, height: 200 } },
      { type: 2, timestamp: t + 1, data: doc('#ff0000') },
      {
        type: 3,
        timestamp: t + 100,
        data: { source: 0, adds: [], removes: [], texts: [], attributes: [{ id: 5, attributes: { style: 'margin:0;background:#00ff00' } }] },
      },
      { type: 4, timestamp: t + 1000, data: { href: 'https://example.com/two', width: 500, height: 300 } },
      { type: 2, timestamp: t + 1050, data: doc('#0000ff') },
    ];
    expect((await postEvents(id, events)).status).toBe(200);
    const look = async (offset: number) => {
      const r = await getBytes(`/recordings/${id}/screenshot.png?time=offset:${offset}`, { key: secret() });
      expect(r.status).toBe(200);
      const { data, info } = await sharp(r.body).removeAlpha().raw().toBuffer({ resolveWithObject: true });
      const o = (Math.floor(info.height / 2) * info.width + Math.floor(info.width / 2)) * 3;
      return { offset, size: `${info.width}x${info.height}`, centre: Array.from(data.subarray(o, o + 3)) };
    };
    const green = { size: '1280x640', centre: [0, 255, 0] }; // 400x200, drawn 1280 wide
    // The moments inside the gap first, on a fresh replay page: what it showed before must not matter.
    expect(await look(1030)).toEqual({ offset: 1030, ...green });
    expect(await look(1000)).toEqual({ offset: 1000, ...green });
    expect(await look(1050)).toEqual({ offset: 1050, size: '1280x768', centre: [0, 0, 255] });
    expect(await look(999)).toEqual({ offset: 999, ...green });
    expect(await look(1049)).toEqual({ offset: 1049, ...green });
  });

  it('shows the recorded document of an iframe with srcdoc, on every cold render', async () => {
    // rrweb records the frame's document separately (attached by a mutation, as the recorder does);
    // the page's script had turned the srcdoc's blue block red. Rebuilding srcdoc raced with that.
    const frameDoc = {
      type: 0,
      id: 20,
      childNodes: [
        {
          type: 2,
          tagName: 'html',
          attributes: {},
          id: 21,
          rootId: 20,
          childNodes: [
            { type: 2, tagName: 'head', attributes: {}, childNodes: [], id: 22, rootId: 20 },
            {
              type: 2,
              tagName: 'body',
              attributes: { style: 'margin:0' },
              id: 23,
              rootId: 20,
              childNodes: [{ type: 2, tagName: 'div', attributes: { style: 'height:100px;background:#ff0000' }, childNodes: [], id: 24, rootId: 20 }],
            },
          ],
        },
      ],
    };
    const attach = {
      type: 3,
      data: { source: 0, adds: [{ parentId: 10, nextId: null, node: frameDoc }], removes: [], texts: [], attributes: [], isAttachIframe: true },
    };
    const seen: number[][] = [];
    for (let i = 0; i < 4; i++) {
      const png = await bodyShot(
        'margin:0',
        [
          {
            type: 2,
            tagName: 'iframe',
            attributes: {
              style: 'border:0;width:300px;height:100px;display:block',
              srcdoc: '<body style="margin:0"><div style="height:100px;background:#0000ff"></div></body>',
            },
            childNodes: [],
            id: 10,
          },
        ],
        { width: 400, height: 200 },
        [attach],
      );
      const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
      const o = (50 * info.width + 50) * 3;
      seen.push(Array.from(data.subarray(o, o + 3)));
    }
    expect(seen).toEqual(Array(4).fill([255, 0, 0]));
  });

  it.each([
    ['time=bogus'],
    ['time=offset:abc'],
    ['time=percent:101'],
    ['time=epoch:-5'],
    ['width=0'],
    ['width=4097'],
    ['width=12.5'],
    ['width=abc'],
    ['height=0'],
    ['height=4097'],
    ['quality=0'],
    ['quality=101'],
    ['width=100&width=200'],
  ])('answers 400 for %s', async (query) => {
    const r = await shot('screenshot', query);
    expect(r.status).toBe(400);
    expect(r.headers.get('content-type')).toMatch(/^(text\/plain|application\/json)/);
  });

  it('answers 400 for a recording id that is not a UUID', async () => {
    const r = await getBytes('/recordings/not-a-uuid/screenshot.png', { key: secret() });
    expect(r.status).toBe(400);
  });

  it.each(['time=', 'time=bogus', 'time=offset:'])('answers 400 for %s, as for any malformed time', async (query) => {
    const r = await shot('screenshot.png', query);
    expect(r.status).toBe(400);
    expect(r.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(r.text).toMatch(/Invalid time/);
  });

  it.each([
    ['offset past the end', () => `time=offset:${fx.lastTs - fx.firstTs + 1}`],
    ['negative offset before the start', () => `time=offset:-${fx.lastTs - fx.firstTs + 1}`],
    ['epoch before the start', () => `time=epoch:${fx.firstTs - 1}`],
    ['epoch after the end', () => `time=epoch:${fx.lastTs + 1}`],
  ])('answers 422 for a position outside the recording (%s)', async (_name, query) => {
    const r = await shot('screenshot.png', query());
    expect(r.status).toBe(422);
    expect(r.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(r.text).toMatch(/outside the recording/);
  });

  it('accepts every position inside the recording, including its ends', async () => {
    for (const q of ['time=offset:0', `time=offset:-1`, 'time=percent:100', `time=epoch:${fx.lastTs}`, 'time=poster', '']) {
      expect((await shot('screenshot.png', `${q}&width=200`)).status).toBe(200);
    }
  });

  it('answers 404 for an unknown recording', async () => {
    const r = await getBytes(`/recordings/${randomUUID()}/screenshot.png`, { key: secret() });
    expect(r.status).toBe(404);
    expect(r.headers.get('content-type')).toMatch(/^text\/plain/);
  });

  describe('format negotiation', () => {
    it.each([
      ['screenshot.png', 'image/webp', 'png'],
      ['screenshot.jpeg', 'image/png', 'jpeg'],
      ['screenshot.jpg', 'image/webp', 'jpeg'],
      ['screenshot.webp', 'image/jpeg', 'webp'],
      ['screenshot', 'image/webp', 'webp'],
      ['screenshot', 'image/jpeg', 'jpeg'],
      ['screenshot', 'image/png', 'png'],
      ['screenshot', '*/*', 'png'],
      ['screenshot', 'image/*', 'png'],
      ['screenshot', 'image/webp;q=0.5, image/jpeg', 'jpeg'],
      ['screenshot', 'text/html', 'png'],
      ['screenshot', undefined, 'png'],
    ])('%s with Accept %p gives %s', async (path, accept, format) => {
      const r = await shot(path, 'width=320', { headers: accept ? { accept } : {} });
      expect(r.status).toBe(200);
      expect(magicFormat(r.body)).toBe(format);
      expect(r.headers.get('content-type')).toBe(`image/${format}`);
      if (path === 'screenshot') expect(r.headers.get('vary')).toMatch(/accept/i);
    });

    it('applies quality to JPEG and WebP', async () => {
      const size = async (path: string, quality: number) => (await shot(path, `width=640&quality=${quality}`)).body.length;
      expect(await size('screenshot.jpeg', 5)).toBeLessThan(await size('screenshot.jpeg', 95));
      expect(await size('screenshot.webp', 5)).toBeLessThan(await size('screenshot.webp', 95));
    });
  });

  describe('size', () => {
    it.each([
      ['height=300', 600, 300],
      ['width=500', 500, 250],
      ['', 1280, 640],
      ['width=400&height=400', 400, 400],
      ['width=4096&height=1', 4096, 1],
    ])('%s gives %dx%d for a 1000x500 recording', async (query, width, height) => {
      const r = await shot('screenshot.png', query);
      expect(r.status).toBe(200);
      expect(await sharp(r.body).metadata()).toMatchObject({ width, height });
    });
  });

  describe('access', () => {
    it('opens with a presigned link and no other credentials', async () => {
      const r = await shot('screenshot.webp', `width=300&${presignedQuery(fx.recordingId)}`, { key: null });
      expect(r.status).toBe(200);
      expect(magicFormat(r.body)).toBe('webp');
      // A viewer's cache may keep it a minute, but not past the link's expiry.
      expect(r.headers.get('cache-control')).toBe('private, max-age=60');
      const soon = await shot('screenshot.webp', `width=300&${presignedQuery(fx.recordingId, Math.floor(Date.now() / 1000) + 10)}`, { key: null });
      expect(soon.headers.get('cache-control')).toMatch(/^private, max-age=(9|10)$/);
    });

    it('refuses a tampered presigned link (403) and a link of another recording (403)', async () => {
      const link = presignedQuery(fx.recordingId);
      expect((await shot('screenshot.png', tampered(link), { key: null })).status).toBe(403);
      expect((await shot('screenshot.png', presignedQuery(randomUUID()), { key: null })).status).toBe(403);
    });

    it('refuses the public key and missing credentials (401)', async () => {
      expect((await shot('screenshot.png', '', { key: testEnv().publicKey })).status).toBe(401);
      expect((await shot('screenshot', '', { key: null })).status).toBe(401);
    });

    it('ignores query parameters outside the spec', async () => {
      expect((await shot('screenshot.png', 'width=200&format=jpeg&foo=bar')).status).toBe(200);
    });
  });

  describe('operations', () => {
    it('reports renders in /metrics and the renderer in /readyz details', async () => {
      const metrics = (await api('/metrics')).text;
      const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(metrics)?.[1]);
      expect(value('tapedeck_render_total')).toBeGreaterThan(0);
      expect(value('tapedeck_render_image_cache_hits_total')).toBeGreaterThan(0);
      for (const name of ['tapedeck_render_failures_total', 'tapedeck_render_queue_length', 'tapedeck_render_in_flight', 'tapedeck_render_rejected_total']) {
        expect(Number.isFinite(value(name))).toBe(true);
      }
      const ready = await api('/readyz');
      expect(ready.status).toBe(200);
      // Chromium is driven from the render thread (RENDER_THREAD=worker, the default), not the service's.
      expect(ready.json().details.renderer).toMatchObject({
        thread: 'worker',
        concurrency: expect.any(Number),
        renders: expect.any(Number),
        inFlight: expect.any(Number),
      });
    });

    it('reports the render time as a histogram, counting a new render once and a cached one not at all', async () => {
      const scrape = async () => {
        const text = (await api('/metrics')).text;
        const value = (series: string) => Number(new RegExp(`^${series.replace(/[{}+."]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1]);
        return {
          text,
          count: value('tapedeck_render_duration_seconds_count'),
          sum: value('tapedeck_render_duration_seconds_sum'),
          inf: value('tapedeck_render_duration_seconds_bucket{le="+Inf"}'),
        };
      };
      const before = await scrape();
      expect(before.text).toMatch(/^# TYPE tapedeck_render_duration_seconds histogram$/m);
      const query = `time=percent:37&width=${300 + Math.floor(Math.random() * 500)}`; // not in the image cache
      expect((await shot('screenshot.png', query)).status).toBe(200);
      expect((await shot('screenshot.png', query)).status).toBe(200); // from the image cache
      const after = await scrape();
      expect(after.count).toBe(before.count + 1);
      expect(after.inf).toBe(after.count);
      expect(after.sum).toBeGreaterThan(before.sum);
      expect(after.text).toMatch(/^tapedeck_render_duration_seconds_bucket\{le="0\.1"\} \d+$/m);
    });

    it.each(['SIGINT', 'SIGTERM'] as const)('finishes a render in flight when stopped with %s, closes Chromium, then exits by the signal', async (signal) => {
      const env = testEnv();
      // LOG_LEVEL debug: the service logs each request as it arrives.
      const svc = await startService(
        { ...env.serviceEnv, TAPEDECK_ROLE: 'api', TAPEDECK_ADMIN_TOKEN: '', LOG_LEVEL: 'debug' },
        env.dir,
        `screenshot-${signal}`,
      );
      try {
        const get = (width: number, height: number) =>
          getBytes(`/recordings/${fx.recordingId}/screenshot.png?time=percent:50&width=${width}&height=${height}`, { key: secret(), base: svc.url });
        expect((await get(640, 400)).status).toBe(200); // Chromium is up
        const chromium = descendants(svc.child.pid!);
        expect(chromium.length).toBeGreaterThan(0);
        const exited = new Promise<{ code: number | null; signal: string | null }>((r) => svc.child.once('exit', (code, sig) => r({ code, signal: sig })));
        // The largest picture (~0.5 s to render and encode): the stop comes once the service has
        // logged the request's arrival, so it lands while the answer is being made.
        const inFlight = get(4096, 4096);
        const arrived = (log: string) => log.split('\n').some((line) => line.includes('"incoming request"') && line.includes('width=4096'));
        await pollUntil(async () => readFileSync(svc.logFile, 'utf8'), arrived, 10_000, 5);
        svc.child.kill(signal);
        const r = await inFlight;
        expect(r.status).toBe(200);
        expect(await sharp(r.body).metadata()).toMatchObject({ format: 'png', width: 4096, height: 4096 });
        // Exit by the signal itself (Nest re-raises it after its hooks), not playwright's exit(130).
        expect(await exited).toEqual({ code: null, signal });
        expect(
          await pollUntil(
            async () => chromium.filter(alive),
            (left) => left.length === 0,
            5_000,
            100,
          ),
        ).toEqual([]);
      } finally {
        await svc.stop('SIGKILL');
      }
    });

    it('runs Chromium below the service in CPU priority (RENDER_NICE), its session group too', async () => {
      const env = testEnv();
      const svc = await startService({ ...env.serviceEnv, TAPEDECK_ROLE: 'api', TAPEDECK_ADMIN_TOKEN: '', RENDER_NICE: '7' }, env.dir, 'screenshot-nice');
      try {
        const r = await getBytes(`/recordings/${fx.recordingId}/screenshot.png?time=percent:50&width=320&height=200`, { key: secret(), base: svc.url });
        expect(r.status).toBe(200);
        const niceOf = (pid: number) => Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')[16]);
        const chromium = descendants(svc.child.pid!).filter((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('chrom'));
        expect(chromium.length).toBeGreaterThan(0);
        const base = niceOf(process.pid);
        expect(niceOf(svc.child.pid!)).toBe(base);
        // Every process of it (the browser, its zygotes and renderers) at least 7 lower: as root Chromium
        // would raise its browser process to -8 itself, unless the capability is taken away.
        const tooHigh = chromium.filter((pid) => niceOf(pid) < Math.min(19, base + 7));
        if (process.getuid?.() !== 0 || existsSync('/usr/bin/setpriv')) expect(tooHigh).toEqual([]);
        if (existsSync('/proc/self/autogroup')) expect(readFileSync(`/proc/${chromium[0]}/autogroup`, 'utf8')).toMatch(/ nice 7\n?$/);
      } finally {
        await svc.stop('SIGKILL');
      }
    });

    it('documents every screenshot route with its query parameters', async () => {
      const doc = (await api('/openapi.json')).json<{
        paths: Record<string, { get: { tags: string[]; parameters: { name: string }[]; responses: Record<string, unknown> } }>;
      }>();
      for (const suffix of ['screenshot', 'screenshot.png', 'screenshot.jpeg', 'screenshot.jpg', 'screenshot.webp']) {
        const op = doc.paths[`/recordings/{recordingId}/${suffix}`]?.get;
        expect(op?.tags).toContain('rendering');
        expect(op.parameters.map((p) => p.name)).toEqual(expect.arrayContaining(['recordingId', 'time', 'width', 'height', 'quality', 'signature']));
        expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '304', '400', '401', '403', '404', '422', '503']));
      }
    });
  });

  describe('caching', () => {
    it('sends a strong ETag and private caching, and answers If-None-Match with 304', async () => {
      const first = await shot('screenshot.png', 'time=percent:50&width=400');
      expect(first.status).toBe(200);
      const etag = first.headers.get('etag')!;
      expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
      expect(first.headers.get('cache-control')).toBe('private, max-age=60');
      const again = await shot('screenshot.png', 'time=percent:50&width=400', { headers: { 'if-none-match': etag } });
      expect(again.status).toBe(304);
      expect(again.body.length).toBe(0);
      expect(again.headers.get('etag')).toBe(etag);
      const weak = await shot('screenshot.png', 'time=percent:50&width=400', { headers: { 'if-none-match': `"nope", W/${etag}` } });
      expect(weak.status).toBe(304);
      const other = await shot('screenshot.png', 'time=percent:50&width=400', { headers: { 'if-none-match': '"nope"' } });
      expect(other.status).toBe(200);
      expect(other.body.equals(first.body)).toBe(true);
    });

    it('varies on Origin (CORS) and, without an extension, on Accept; a 304 too', async () => {
      const origin = { origin: 'https://app.example.com' };
      const vary = (r: { headers: Headers }) =>
        (r.headers.get('vary') ?? '')
          .split(',')
          .map((v) => v.trim().toLowerCase())
          .sort();
      const negotiated = await shot('screenshot', 'time=percent:50&width=400', { headers: { ...origin, accept: 'image/png' } });
      expect(negotiated.status).toBe(200);
      expect(vary(negotiated)).toEqual(['accept', 'origin']);
      const etag = negotiated.headers.get('etag')!;
      const notModified = await shot('screenshot', 'time=percent:50&width=400', { headers: { ...origin, accept: 'image/png', 'if-none-match': etag } });
      expect(notModified.status).toBe(304);
      expect(vary(notModified)).toEqual(['accept', 'origin']);
      expect(vary(await shot('screenshot.png', 'time=percent:50&width=400', { headers: origin }))).toEqual(['origin']);
    });

    it('renders late events: the same request gives the new picture once events before T arrive', async () => {
      const id = randomUUID();
      const late = (e: { timestamp: number }) => e.timestamp > fx.before && e.timestamp <= fx.at;
      expect(
        (
          await postEvents(
            id,
            fx.events.filter((e) => !late(e)),
          )
        ).status,
      ).toBe(200);
      const get = () => getBytes(`/recordings/${id}/screenshot.png?time=epoch:${fx.at}&width=1000&height=500`, { key: secret() });
      const first = await get();
      expect(first.status).toBe(200);
      expect((await similarity(fx.live, first.body)).similarPixels).toBeLessThan(MIN_SIMILAR_PIXELS); // no interactions yet
      expect((await postEvents(id, fx.events.filter(late))).status).toBe(200);
      const after = await get();
      expect(after.status).toBe(200);
      expect(after.headers.get('etag')).not.toBe(first.headers.get('etag'));
      expect((await similarity(fx.live, after.body)).similarPixels).toBeGreaterThanOrEqual(MIN_SIMILAR_PIXELS);
    });
  });
});
