// Contained rendering against the real Chromium (the service's pool and renderer, no service):
// - the recording that crashed the renderer (a data: iframe beside a loopback one) renders, and
//   reaches no network;
// - a crash is contained. Chromium is made to crash (Browser.crash) whenever a replayed page asks
//   for an image at crash.invalid, as content that crashes Chromium would: the recording that does so
//   gets 422 (and is then refused without a browser), while renders of other recordings that were in
//   flight in the same browser, or queued, succeed.
import { AddressInfo, createServer, Server } from 'node:net';
import { Browser, chromium } from 'playwright-core';
import { BrowserPool } from '../../src/rendering/browser-pool/browser-pool';
import { CHROMIUM_ARGS } from '../../src/rendering/browser-pool/chromium-launch';
import { LocalBrowser } from '../../src/rendering/screenshot/replay-page';
import { ScreenshotRenderer, ScreenshotRequest } from '../../src/rendering/screenshot/screenshot-renderer';
import { snapshotData } from '../e2e/rendering-e2e-fixtures';

const CHROMIUM = '/usr/bin/chromium';

jest.setTimeout(120_000);

const el = (id: number, tagName: string, attributes: Record<string, string>, childNodes: unknown[] = []) => ({ type: 2, id, tagName, attributes, childNodes });

/** Meta, a FullSnapshot whose body holds `children`, and a mouse move. */
function recording(children: unknown[]) {
  const t = 1_700_000_000_000;
  return [
    { type: 4, timestamp: t, data: { href: 'https://example.com/', width: 400, height: 300 } },
    { type: 2, timestamp: t + 1, data: snapshotData({ attributes: { style: 'margin:0;background:#fff' }, childNodes: children }) },
    { type: 3, timestamp: t + 2, data: { source: 1, positions: [{ x: 1, y: 1, id: 5, timeOffset: 0 }] } },
  ];
}

/** A loopback TCP listener that counts connections. */
async function listener(): Promise<{ server: Server; port: number; contacts: string[] }> {
  const contacts: string[] = [];
  const server = createServer((socket) => {
    contacts.push('connection');
    socket.on('error', () => undefined);
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, contacts };
}

describe('contained rendering', () => {
  it('renders a snapshot holding a data: iframe beside a loopback one, without a crash or any contact', async () => {
    const { server, port, contacts } = await listener();
    const pool = new BrowserPool({ chromiumPath: CHROMIUM, concurrency: 2, queueLimit: 8, timeoutMs: 15_000 });
    const renderer = new ScreenshotRenderer(pool, { timeoutMs: 15_000 });
    try {
      const events = recording([
        el(10, 'p', {}, [{ type: 3, id: 11, textContent: 'frames below' }]),
        el(12, 'iframe', { src: 'data:text/html,hello' }),
        el(13, 'iframe', { src: `http://127.0.0.1:${port}/x` }),
      ]);
      for (const contentKey of ['first', 'second', 'third']) {
        const image = await renderer.render({ tenantId: 't', contentKey, events, time: { kind: 'percent', value: 100 }, format: 'png' });
        expect(image.bytes.length).toBeGreaterThan(1000);
      }
      expect(pool.crashes).toBe(0);
      expect(pool.launches).toBe(1);
      await new Promise((r) => setTimeout(r, 500));
      expect(contacts).toEqual([]);
    } finally {
      await renderer.close();
      await pool.close();
      server.close();
    }
  });

  describe('a crash', () => {
    let pool: BrowserPool;
    let renderer: ScreenshotRenderer;
    let slowSeen: () => void;
    const slowRequested = new Promise<void>((resolve) => (slowSeen = resolve));

    /**
     * Chromium as the service launches it, which holds a replay's image from slow.invalid for 3 s, and
     * crashes when a replay asks for one from crash.invalid (once an image from slow.invalid was asked
     * for, so that another render is surely in flight).
     */
    async function crashingChromium(): Promise<Browser> {
      const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
      const newContext = browser.newContext.bind(browser);
      browser.newContext = async (options) => {
        const context = await newContext(options);
        context.on('page', (page) => {
          void page.route('http://crash.invalid/**', async () => {
            await slowRequested;
            const cdp = await browser.newBrowserCDPSession();
            await cdp.send('Browser.crash').catch(() => undefined);
          });
          void page.route('http://slow.invalid/**', (route) => {
            slowSeen();
            setTimeout(() => void route.abort('aborted').catch(() => undefined), 3000);
          });
        });
        return context;
      };
      return browser;
    }

    const image = (src: string) => recording([el(10, 'img', { src, width: '50', height: '50' }), el(11, 'p', {}, [{ type: 3, id: 12, textContent: src }])]);
    const shot = (tenantId: string, contentKey: string, events: unknown[]): Promise<unknown> =>
      renderer.render({ tenantId, contentKey, events: events as ScreenshotRequest['events'], time: { kind: 'percent', value: 100 }, format: 'png' });

    beforeAll(() => {
      pool = new BrowserPool({
        chromiumPath: CHROMIUM,
        concurrency: 2,
        queueLimit: 8,
        timeoutMs: 15_000,
        launch: async () => new LocalBrowser(await crashingChromium()),
      });
      renderer = new ScreenshotRenderer(pool, { timeoutMs: 15_000 });
    });

    afterAll(async () => {
      await renderer?.close();
      await pool?.close();
    });

    it('fails only the render that caused it: 422, remembered; renders in flight and queued succeed', async () => {
      // Tenant B's render is in flight (its image held) when tenant A's recording crashes Chromium.
      const crashing = shot('tenant-a', 'a/evil/1', image('http://crash.invalid/a.png'));
      const inFlight = shot('tenant-b', 'b/ordinary/1', image('http://slow.invalid/a.png'));
      const queued = shot('tenant-b', 'b/other/1', image('https://cdn.example.com/b.png')); // waits for a slot
      const [b1, a, b2] = await Promise.allSettled([inFlight, crashing, queued]);
      expect([b1, b2].map((r) => (r.status === 'rejected' ? String(r.reason) : r.status))).toEqual(['fulfilled', 'fulfilled']);
      expect(a).toMatchObject({ status: 'rejected', reason: { code: 'unprocessable', message: expect.stringMatching(/crashes the renderer/) } });
      expect(pool.crashes).toBeGreaterThanOrEqual(2);

      // Refused at once from then on, without a browser.
      const launches = pool.launches;
      const started = performance.now();
      await expect(shot('tenant-a', 'a/evil/1', image('http://crash.invalid/a.png'))).rejects.toMatchObject({ code: 'unprocessable' });
      expect(performance.now() - started).toBeLessThan(100);
      expect(pool.launches).toBe(launches);
      // Nothing is left open: the retries' browsers are closed, and the shared browser renders on.
      await expect(shot('tenant-b', 'b/third/1', image('https://cdn.example.com/c.png'))).resolves.toBeDefined();
    });
  });
});
