// The service's scripts and stylesheets (console bundles, rrweb-player's assets, the recorder SDK and
// rrweb's browser client) travel compressed to clients that take it: brotli or gzip by
// Accept-Encoding, each representation with its own ETag and Vary (common/static-asset.ts). Read
// with node:http, which does not decode, so the bytes on the wire are what is checked; and in
// Chromium, which must run the brotli console bundle it receives.
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../harness/browser';
import { testEnv } from '../harness/env';
import { rawGet as get } from '../harness/http';

/** Vary names Accept-Encoding (beside Origin where CORS adds it). */
const VARY = /(^|, *)Accept-Encoding($|,)/;

/** The console page's bundle URLs (their ?v= names the build). */
async function consoleAssetPaths(): Promise<string[]> {
  const html = (await get('/console/recordings')).body.toString('utf8');
  return [...html.matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)"/g)].map((m) => m[1].replace(/&amp;/g, '&'));
}

describe('compressed assets', () => {
  let paths: string[];

  beforeAll(async () => {
    const fromConsole = await consoleAssetPaths();
    expect(fromConsole).toHaveLength(2);
    paths = [...fromConsole, '/assets/rrweb-player.js', '/assets/rrweb-player.css', '/sdk/recorder.js', '/record.js'];
  });

  it('sends each in brotli, gzip or identity by Accept-Encoding, decoding to the same bytes', async () => {
    for (const path of paths) {
      const plain = await get(path);
      expect({ path, status: plain.status }).toEqual({ path, status: 200 });
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.headers.vary).toMatch(VARY);

      const br = await get(path, { 'accept-encoding': 'gzip, deflate, br, zstd' });
      expect({ path, coding: br.headers['content-encoding'] }).toEqual({ path, coding: 'br' });
      expect(brotliDecompressSync(br.body).equals(plain.body)).toBe(true);
      expect(br.body.length).toBeLessThan(plain.body.length * 0.5);
      expect(br.headers.vary).toMatch(VARY);

      const gz = await get(path, { 'accept-encoding': 'gzip;q=1, br;q=0.5' });
      expect({ path, coding: gz.headers['content-encoding'] }).toEqual({ path, coding: 'gzip' });
      expect(gunzipSync(gz.body).equals(plain.body)).toBe(true);

      // Each representation has its own validator, and a 304 answers only the matching one.
      expect(new Set([plain.headers.etag, br.headers.etag, gz.headers.etag]).size).toBe(3);
      const again = await get(path, { 'accept-encoding': 'br', 'if-none-match': String(br.headers.etag) });
      expect({ path, status: again.status, length: again.body.length }).toEqual({ path, status: 304, length: 0 });
      expect(again.headers.vary).toMatch(VARY);
      expect((await get(path, { 'accept-encoding': 'gzip', 'if-none-match': String(br.headers.etag) })).status).toBe(200);
    }
  });

  describe('in Chromium', () => {
    let browser: Browser;
    beforeAll(async () => {
      browser = await launchChromium();
    });
    afterAll(async () => {
      await browser?.close();
    });

    it('runs the console from its brotli bundle', async () => {
      const page = await browser.newPage();
      const codings = new Map<string, string | undefined>();
      page.on('response', (r) => {
        if (r.url().includes('/console/assets/')) codings.set(new URL(r.url()).pathname, r.headers()['content-encoding']);
      });
      await page.goto(`${testEnv().baseUrl}/console/recordings`);
      // Signed out, the console's script routes to its sign-in form: it ran.
      await page.getByLabel(/private key/i).waitFor({ timeout: 15_000 });
      expect(Object.fromEntries(codings)).toEqual({ '/console/assets/console.js': 'br', '/console/assets/console.css': 'br' });
      await page.close();
    });
  });
});
