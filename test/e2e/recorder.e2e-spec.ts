// Our recorder in a real page: the WebSocket is cut in the middle of a session and comes back; every
// recorded event is read back from the service exactly once, in order. Then the recorder across tabs
// (window.open, duplicated tabs), the back/forward cache, a refused key, and stop()/start().
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../harness/browser';
import { testEnv } from '../harness/env';
import { api } from '../harness/http';
import { pollUntil } from '../harness/poll-until';
import { PageServer } from '../harness/page-server';
import { TcpProxy } from '../harness/tcp-proxy';

function page(serverUrl: string, publicKey: string) {
  return `<!doctype html><html><head><title>recorder test</title></head><body>
<h1>Recorder</h1><input id="name"><button id="go" onclick="document.getElementById('out').textContent += '!'">Go</button><p id="out"></p>
<script>window.__recorded = [];</script>
<script src="${serverUrl}/sdk/recorder.js"></script>
<script>Tapedeck.start({ publicKey: ${JSON.stringify(publicKey)}, serverUrl: ${JSON.stringify(serverUrl)}, meta: { suite: 'recorder-e2e' },
  recordOptions: { emit: function (e) { window.__recorded.push(JSON.parse(JSON.stringify(e))); } } });</script>
</body></html>`;
}

type Ev = { type: number; timestamp: number; data: unknown; sequenceId?: number; originalTimestamp?: number };
const strip = ({ sequenceId: _s, originalTimestamp: _o, ...rest }: Ev) => JSON.stringify(rest);

describe('browser recorder over a WebSocket that is cut', () => {
  let browser: Browser;
  let proxy: TcpProxy;
  let pages: PageServer;

  beforeAll(async () => {
    browser = await launchChromium();
    proxy = await TcpProxy.start(Number(new URL(testEnv().baseUrl).port));
    pages = await PageServer.start({ '/': () => page(proxy.url, testEnv().publicKey) });
  });
  afterAll(async () => {
    await browser?.close();
    await proxy?.cut();
    await pages?.close();
  });

  it('reads back every recorded event exactly once and in order after a reconnect', async () => {
    const ctx = await browser.newContext();
    const p = await ctx.newPage();
    const errors: string[] = [];
    p.on('pageerror', (e) => errors.push(e.message));
    await p.goto(`${pages.url}/`);
    const stats = () => p.evaluate(() => (window as any).Tapedeck.stats());
    await p.fill('#name', 'before the cut');
    await p.click('#go');
    await pollUntil(stats, (s) => s && s.acked > 0 && s.transport === 'websocket', 15_000);

    await proxy.cut();
    for (let i = 0; i < 5; i++) {
      await p.click('#go');
      await p.type('#name', `x${i}`);
    }
    await new Promise((r) => setTimeout(r, 1500)); // the outage itself
    await proxy.restore();
    await p.click('#go');
    await p.evaluate(() => (window as any).Tapedeck.flush());
    const final = await stats();
    expect(final.pending).toBe(0);
    expect(final.dropped + final.lost).toBe(0);
    expect(final.resent + final.sent).toBeGreaterThan(0);

    const recordingId: string = await p.evaluate(() => (window as any).Tapedeck.getRecordingId());
    // Stopped before the page closes: closing blurs the focused button, and that last event (sent on
    // pagehide) would reach the service after the copy below was taken.
    await p.evaluate(() => (window as any).Tapedeck.stop());
    const recorded: Ev[] = await p.evaluate(() => (window as any).__recorded);
    await ctx.close();

    const r = await api(`/recordings/${recordingId}/events`, { key: testEnv().secretKey });
    expect(r.status).toBe(200);
    const stored = r.json<Ev[]>();
    // Metadata events are stored as metadata, not returned as events.
    const expected = recorded.filter((e) => !(e.type === 5 && (e.data as { tag?: string }).tag === 'recording-meta'));
    const byTime = [...expected].sort((a, b) => a.timestamp - b.timestamp);
    expect(stored.map(strip)).toEqual(byTime.map(strip));
    for (const e of stored) expect(e.originalTimestamp).toBe(e.timestamp);
    const seqs = stored.map((e) => e.sequenceId);
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(errors).toEqual([]);
  });
});

// Pages that start the recorder from the script tag (as customers do), with links between them.
function tagPage(serverUrl: string, publicKey: string, opts: { transport?: 'http'; links?: string[]; csp?: string } = {}) {
  const links = (opts.links ?? []).map((href) => `<a id="to-${href.replace(/\W/g, '')}" href="${href}">${href}</a>`).join(' ');
  const csp = opts.csp ? `<meta http-equiv="Content-Security-Policy" content="${opts.csp}">` : '';
  return `<!doctype html><html><head>${csp}<title>recorder tag test</title></head><body>
<h1>Tag</h1><input id="name"><button id="go" onclick="document.getElementById('out').textContent += '!'">Go</button><p id="out"></p>${links}
<script>window.__shows = []; addEventListener('pageshow', function (e) { window.__shows.push(e.persisted); });</script>
<script src="${serverUrl}/sdk/recorder.js" data-public-key="${publicKey}" data-server-url="${serverUrl}"${opts.transport ? ` data-transport="${opts.transport}"` : ''}></script>
</body></html>`;
}

const recorder = (p: Page) => ({
  id: () => p.evaluate<string>(() => (window as any).Tapedeck.getRecordingId()),
  stats: () => p.evaluate(() => (window as any).Tapedeck.stats()),
  flush: () => p.evaluate(() => (window as any).Tapedeck.flush()),
});

/** Clicks and types, so the page records some incremental events. */
async function act(p: Page, text: string) {
  await p.click('#go');
  await p.type('#name', text);
}

async function storedEvents(recordingId: string): Promise<Ev[]> {
  const r = await api(`/recordings/${recordingId}/events`, { key: testEnv().secretKey });
  expect(r.status).toBe(200);
  return r.json<Ev[]>();
}

/** What makes a recording replayable and loss-free: sequenceIds unique and increasing in time order. */
function expectIncreasingSequenceIds(events: Ev[]) {
  const seqs = events.map((e) => e.sequenceId as number);
  for (let i = 1; i < seqs.length; i++) expect(seqs[i]).toBeGreaterThan(seqs[i - 1]);
}

const fullSnapshots = (events: Ev[]) => events.filter((e) => e.type === 2).length;

describe('browser recorder across tabs and page lifecycles', () => {
  let browser: Browser;
  let pages: PageServer;
  let cuttable: TcpProxy;

  beforeAll(async () => {
    browser = await launchChromium();
    const { baseUrl, publicKey } = testEnv();
    cuttable = await TcpProxy.start(Number(new URL(baseUrl).port));
    pages = await PageServer.start({
      // Pages that reach the service through a proxy the test can cut.
      '/pa': () => tagPage(cuttable.url, publicKey, { transport: 'http', links: ['/pb'] }),
      '/pb': () => tagPage(cuttable.url, publicKey, { transport: 'http', links: ['/pa'] }),
      '/tab': () => tagPage(baseUrl, publicKey),
      '/tab-next': () => tagPage(baseUrl, publicKey),
      '/a': () => tagPage(baseUrl, publicKey, { transport: 'http', links: ['/b'] }),
      '/b': () => tagPage(baseUrl, publicKey, { transport: 'http', links: ['/a'] }),
      '/refused': () => tagPage(baseUrl, 'public_key_svc_not_a_key_of_this_service', { transport: 'http' }),
      '/manual': () => page(baseUrl, publicKey),
      '/csp-blocked': () => tagPage(baseUrl, publicKey, { csp: "connect-src 'none'" }),
      '/csp-no-images': () => tagPage(baseUrl, publicKey, { csp: "img-src 'none'" }),
      // An http: source does not match ws: (CSP3 scheme matching): HTTP is allowed, the socket is not.
      '/csp-http-only': () => tagPage(baseUrl, publicKey, { csp: `connect-src ${baseUrl}` }),
      // A site template that puts the tag on every page, a page shown in a same-origin frame included.
      '/framed-top': () => tagPage(baseUrl, publicKey).replace('<p id="out"></p>', '<p id="out"></p><iframe id="frame" src="/framed-inner"></iframe>'),
      // The same, with the page's tag below a slow script: the frame loads and runs its tag first.
      '/framed-slow-top': () =>
        tagPage(baseUrl, publicKey).replace(
          '<p id="out"></p>',
          '<p id="out"></p><iframe id="frame" src="/framed-inner"></iframe><script src="/slow.js"></script>',
        ),
      '/framed-inner': () =>
        tagPage(baseUrl, publicKey).replace(
          '<h1>Tag</h1>',
          "<h1 id=\"inner\">Inner frame</h1><script>setTimeout(function () { document.getElementById('inner').textContent = 'Inner changed'; }, 300);</script>",
        ),
    });
  });
  afterAll(async () => {
    await browser?.close();
    await pages?.close();
    await cuttable?.cut();
  });

  it('gives a tab opened with window.open its own recording, and keeps one recording per tab across navigations', async () => {
    const ctx = await browser.newContext();
    const opener = await ctx.newPage();
    await opener.goto(`${pages.url}/tab`);
    await act(opener, 'opener');
    await pollUntil(recorder(opener).stats, (s) => s && s.acked > 0, 15_000);

    const [child] = await Promise.all([ctx.waitForEvent('page'), opener.evaluate(() => void window.open('/tab'))]);
    await child.waitForLoadState();
    await act(child, 'child');
    await act(opener, 'opener again');
    await child.click('#go');
    await Promise.all([recorder(opener).flush(), recorder(child).flush()]);

    const openerId = await recorder(opener).id();
    const childId = await recorder(child).id();
    expect(childId).not.toBe(openerId);

    // A same-tab navigation continues the tab's recording.
    await child.goto(`${pages.url}/tab-next`);
    await act(child, 'next page');
    await recorder(child).flush();
    expect(await recorder(child).id()).toBe(childId);
    await ctx.close();

    const openerEvents = await storedEvents(openerId);
    const childEvents = await storedEvents(childId);
    expect(fullSnapshots(openerEvents)).toBe(1);
    expect(fullSnapshots(childEvents)).toBe(2);
    expectIncreasingSequenceIds(openerEvents);
    expectIncreasingSequenceIds(childEvents);
  });

  it('records a same-origin frame that has the tag too as part of the page around it, once', async () => {
    const ctx = await browser.newContext();
    const top = await ctx.newPage();
    await top.goto(`${pages.url}/framed-top`);
    const frame = top.frame({ url: /framed-inner/ })!;
    await frame.waitForFunction(() => document.getElementById('inner')?.textContent === 'Inner changed');
    expect(await frame.evaluate(() => (window as any).Tapedeck.stats())).toBeNull();
    await act(top, 'top');
    await recorder(top).flush();
    const id = await recorder(top).id();
    expect(await frame.evaluate(() => (window as any).Tapedeck.getRecordingId())).toBe(id);
    await ctx.close();

    const events = await storedEvents(id);
    // One page view: the top page's Meta and full snapshot only; the frame's content is recorded within it.
    expect([events.filter((e) => e.type === 4).length, fullSnapshots(events)]).toEqual([1, 1]);
    expect(JSON.stringify(events)).toContain('Inner changed');
    expectIncreasingSequenceIds(events);
  });

  it('records such a frame once even when the tag of the page around it comes after a slow script', async () => {
    const ctx = await browser.newContext();
    // The page's parser waits on this script while the frame loads and runs its own tag.
    await ctx.route('**/slow.js', async (route) => {
      await new Promise((r) => setTimeout(r, 1500));
      await route.fulfill({ contentType: 'application/javascript', body: '' });
    });
    const top = await ctx.newPage();
    await top.goto(`${pages.url}/framed-slow-top`);
    const frame = top.frame({ url: /framed-inner/ })!;
    await frame.waitForFunction(() => document.getElementById('inner')?.textContent === 'Inner changed');
    await pollUntil(recorder(top).stats, (s) => s?.acked > 0, 15_000);
    expect(await frame.evaluate(() => (window as any).Tapedeck.stats())).toBeNull();
    await act(top, 'top');
    await recorder(top).flush();
    const id = await recorder(top).id();
    await ctx.close();

    const events = await storedEvents(id);
    // Before: the frame's own recorder wrote its snapshot and changes into the page's recording too.
    expect([events.filter((e) => e.type === 4).length, fullSnapshots(events)]).toEqual([1, 1]);
    expect(JSON.stringify(events).split('Inner changed').length - 1).toBe(1);
    expectIncreasingSequenceIds(events);
  });

  it('gives a duplicated tab (sessionStorage copied, no opener) its own recording', async () => {
    const ctx = await browser.newContext();
    const original = await ctx.newPage();
    await original.goto(`${pages.url}/tab`);
    await act(original, 'original');
    await recorder(original).flush();
    const copied = await original.evaluate(() => JSON.stringify({ ...sessionStorage }));

    const duplicate = await ctx.newPage();
    await duplicate.addInitScript((items: string) => {
      if (sessionStorage.length > 0) return;
      const parsed = JSON.parse(items) as Record<string, string>;
      for (const key of Object.keys(parsed)) sessionStorage.setItem(key, parsed[key]);
    }, copied);
    await duplicate.goto(`${pages.url}/tab`);
    await act(duplicate, 'duplicate');
    await act(original, 'original again');
    await Promise.all([recorder(original).flush(), recorder(duplicate).flush()]);
    const originalId = await recorder(original).id();
    const duplicateId = await recorder(duplicate).id();
    await ctx.close();

    expect(duplicateId).not.toBe(originalId);
    for (const id of [originalId, duplicateId]) {
      const events = await storedEvents(id);
      expect(fullSnapshots(events)).toBe(1);
      expectIncreasingSequenceIds(events);
    }
  });

  it('after a back/forward-cache restore continues with fresh sequenceIds and a new full snapshot', async () => {
    // Playwright disables the back/forward cache by default; this test needs it.
    const bfcacheBrowser = await launchChromium({ ignoreDefaultArgs: ['--disable-back-forward-cache'] });
    try {
      const p = await (await bfcacheBrowser.newContext()).newPage();
      await p.goto(`${pages.url}/a`);
      await act(p, 'a');
      await recorder(p).flush();
      const id = await recorder(p).id();

      await Promise.all([p.waitForURL(`${pages.url}/b`), p.click('#to-b')]);
      await act(p, 'b');
      await recorder(p).flush();
      expect(await recorder(p).id()).toBe(id);

      await p.goBack({ waitUntil: 'commit' }); // a restored page fires no load event
      const shows = await pollUntil(
        () => p.evaluate<boolean[]>(() => (window as any).__shows),
        (s) => s?.length > 0,
        10_000,
      );
      expect(shows).toEqual([false, true]); // restored from the cache, not loaded again
      const restoredAt = Date.now();
      await act(p, 'a again');
      await recorder(p).flush();

      const events = await storedEvents(id);
      expectIncreasingSequenceIds(events);
      expect(events.filter((e) => e.type === 2 && e.timestamp >= restoredAt - 5000).length).toBeGreaterThan(0);
      expect(fullSnapshots(events)).toBe(3);
    } finally {
      await bfcacheBrowser.close();
    }
  });

  it('delivers what the page left behind saved when the service was unreachable as it went back to a cached page', async () => {
    // Chromium shows the restored page before it hides the one it leaves: the restored page took the
    // saved batches, then the leaving page saved its own, and the restored page overwrote them.
    const bfcacheBrowser = await launchChromium({ ignoreDefaultArgs: ['--disable-back-forward-cache'] });
    try {
      const ctx = await bfcacheBrowser.newContext();
      const p = await ctx.newPage();
      await p.goto(`${pages.url}/pa`);
      await act(p, 'a');
      await recorder(p).flush();
      const id = await recorder(p).id();
      await Promise.all([p.waitForURL(`${pages.url}/pb`), p.click('#to-pb')]);
      await recorder(p).flush();

      await cuttable.cut(); // the service unreachable: nothing B records can be sent
      await p.type('#name', 'left-behind-on-b');
      await p.goBack({ waitUntil: 'commit' });
      const shows = await pollUntil(
        () => p.evaluate<boolean[]>(() => (window as any).__shows),
        (s) => s?.length > 0,
        10_000,
      );
      expect(shows).toEqual([false, true]);
      await new Promise((r) => setTimeout(r, 1500));
      await cuttable.restore();
      // On to another page: the restored page saves what it holds as it goes, and the next one sends it.
      await Promise.all([p.waitForURL(`${pages.url}/pb`), p.click('#to-pb')]);
      await pollUntil(recorder(p).stats, (s) => s?.pending === 0, 20_000);
      await recorder(p).flush();

      const typed = (await storedEvents(id))
        .filter((e) => e.type === 3 && (e.data as { source?: number }).source === 5)
        .map((e) => (e.data as { text?: string }).text);
      expect(typed).toContain('*'.repeat('left-behind-on-b'.length)); // inputs are masked
    } finally {
      await bfcacheBrowser.close();
    }
  });

  it('stats() is null once the recorder stops itself because the server refuses the key', async () => {
    const ctx = await browser.newContext();
    const p = await ctx.newPage();
    await p.goto(`${pages.url}/refused`);
    await p.click('#go');
    await pollUntil(recorder(p).stats, (s) => s === null, 15_000);
    await ctx.close();
  });

  it('continues the sequenceIds without a gap after stop() and start() in the same page', async () => {
    const ctx = await browser.newContext();
    const p = await ctx.newPage();
    await p.goto(`${pages.url}/manual`);
    await act(p, 'first');
    await p.evaluate(() => (window as any).Tapedeck.stop());
    await p.evaluate(({ publicKey, serverUrl }) => (window as any).Tapedeck.start({ publicKey, serverUrl }), {
      publicKey: testEnv().publicKey,
      serverUrl: testEnv().baseUrl,
    });
    await act(p, 'second');
    await recorder(p).flush();
    const id = await recorder(p).id();
    await ctx.close();

    const events = await storedEvents(id);
    expect(fullSnapshots(events)).toBe(2);
    expectIncreasingSequenceIds(events);
    // Stored events leave out the recording-meta event each start() sends first: a step of 2 at most.
    const seqs = events.map((e) => e.sequenceId as number);
    const steps = seqs.slice(1).map((s, i) => s - seqs[i]);
    expect(Math.max(...steps)).toBeLessThanOrEqual(2);
  });

  it('keeps the mouse moves rrweb hands over after stop(): the last positions before it are stored', async () => {
    const ctx = await browser.newContext();
    const p = await ctx.newPage();
    await p.goto(`${pages.url}/manual`);
    await recorder(p).flush();
    // Moves within rrweb's 500 ms mousemove callback window, then stop() at once: rrweb emits the last
    // positions after its stop, from its throttle's timer.
    for (let i = 0; i < 5; i++) {
      await p.mouse.move(40 + i * 30, 60 + i * 10);
      await p.waitForTimeout(60); // rrweb keeps one position per 50 ms
    }
    await p.evaluate(() => (window as any).Tapedeck.stop());
    await p.waitForTimeout(700); // whatever rrweb still emits has reached the page's own emit
    const recorded: { type: number; data: { source?: number; positions?: { x: number }[] } }[] = await p.evaluate(() => (window as any).__recorded);
    const id = await recorder(p).id();
    await ctx.close();

    const moves = (events: typeof recorded) => events.filter((e) => e.type === 3 && e.data.source === 1).flatMap((e) => e.data.positions!.map((pos) => pos.x));
    // The page's own emit saw the last position; so does the service.
    expect(moves(recorded)).toContain(160);
    const stored = (await storedEvents(id)) as unknown as typeof recorded;
    expect(moves(stored)).toEqual(moves(recorded));
  });

  it("stops with a console warning when the page's Content-Security-Policy blocks the service", async () => {
    const ctx = await browser.newContext();
    const p = await ctx.newPage();
    const warnings: string[] = [];
    p.on('console', (m) => m.type() === 'warning' && warnings.push(m.text()));
    await p.goto(`${pages.url}/csp-blocked`);
    await act(p, 'blocked');
    await pollUntil(recorder(p).stats, (s) => s === null, 15_000);
    await ctx.close();
    // The socket is refused first (the recorder turns to HTTP and says so), then the request.
    const ours = warnings.filter((w) => w.startsWith('[tapedeck]'));
    expect(ours.length).toBeLessThanOrEqual(2);
    expect(ours[ours.length - 1]).toMatch(/Content-Security-Policy \(connect-src\) blocks requests to http:\/\/127\.0\.0\.1:\d+.*connect-src/);
  });

  it("keeps recording when the page's Content-Security-Policy blocks only an image from the service", async () => {
    const ctx = await browser.newContext();
    const p = await ctx.newPage();
    await p.goto(`${pages.url}/csp-no-images`);
    const violation = await p.evaluate(
      (src) =>
        new Promise<string>((resolve) => {
          document.addEventListener('securitypolicyviolation', (e) => resolve(`${e.effectiveDirective} ${e.blockedURI}`));
          const img = new Image();
          img.src = src;
          document.body.append(img);
        }),
      `${testEnv().baseUrl}/healthz`,
    );
    expect(violation).toBe(`img-src ${testEnv().baseUrl}/healthz`);
    await act(p, 'still recording');
    await recorder(p).flush();
    const stats = await recorder(p).stats();
    await ctx.close();
    expect(stats).toMatchObject({ recording: true, pending: 0, dropped: 0, lost: 0 });
  });

  it("sends over HTTP from the start when the page's Content-Security-Policy blocks only WebSockets", async () => {
    const ctx = await browser.newContext();
    const p = await ctx.newPage();
    const warnings: string[] = [];
    p.on('console', (m) => m.type() === 'warning' && warnings.push(m.text()));
    await p.goto(`${pages.url}/csp-http-only`);
    // Without the violation event the recorder would wait out its 3 s WebSocket fallback first.
    await pollUntil(recorder(p).stats, (s) => s?.transport === 'http', 10_000, 20);
    expect(await p.evaluate(() => performance.now())).toBeLessThan(2500);
    await act(p, 'over http');
    await recorder(p).flush();
    const stats = await recorder(p).stats();
    const id = await recorder(p).id();
    await ctx.close();
    expect(stats).toMatchObject({ transport: 'http', pending: 0, dropped: 0, lost: 0 });
    expect(warnings.filter((w) => w.startsWith('[tapedeck]'))).toEqual([expect.stringMatching(/blocks WebSockets to .*sending over HTTP/)]);
    const events = await storedEvents(id);
    expect(fullSnapshots(events)).toBe(1);
    expectIncreasingSequenceIds(events);
  });
});

// A page that changes its DOM every 20 ms, and in its own pagehide and visibilitychange handlers, after
// ours. Chromium fires visibilitychange after pagehide: what that handler changes is recorded when
// neither the recorder's pagehide nor its visibilitychange handling can see it.
function busyPage(scriptUrl: string, serverUrl: string, publicKey: string) {
  return `<!doctype html><html><head><title>busy page</title></head><body><p id="t">0</p><a id="next" href="/busy">next</a>
<script>var n = 0; setInterval(function () { document.getElementById('t').textContent = String(++n); }, 20);</script>
<script src="${scriptUrl}/sdk/recorder.js" data-public-key="${publicKey}" data-server-url="${serverUrl}"></script>
<script>addEventListener('pagehide', function () { document.getElementById('t').textContent = 'leaving'; });
document.addEventListener('visibilitychange', function () { if (document.visibilityState === 'hidden') document.getElementById('t').textContent = 'gone'; });</script>
</body></html>`;
}

describe('browser recorder through rapid navigations with the socket cut', () => {
  let browser: Browser;
  let proxy: TcpProxy;
  let pages: PageServer;

  beforeAll(async () => {
    browser = await launchChromium();
    const { baseUrl, publicKey } = testEnv();
    proxy = await TcpProxy.start(Number(new URL(baseUrl).port));
    pages = await PageServer.start({ '/busy': () => busyPage(baseUrl, proxy.url, publicKey) });
  });
  afterAll(async () => {
    await browser?.close();
    await proxy?.cut();
    await pages?.close();
  });

  it('loses no event of any page, the ones recorded during pagehide included', async () => {
    const loads = 12;
    const ctx = await browser.newContext();
    const p = await ctx.newPage();
    for (let i = 0; i < loads; i++) {
      if (i % 4 === 1) await proxy.cut();
      if (i % 4 === 3) await proxy.restore();
      if (i === 0) await p.goto(`${pages.url}/busy`);
      else await Promise.all([p.waitForNavigation(), p.click('#next')]);
      await new Promise((r) => setTimeout(r, 150 + ((i * 97) % 400)));
    }
    await proxy.restore();
    await recorder(p).flush();
    const id = await recorder(p).id();
    await ctx.close();

    // Keepalive requests of earlier pages may still be on their way.
    const events = await pollUntil(
      () => storedEvents(id),
      (e) => fullSnapshots(e) >= loads,
      15_000,
    );
    expect(fullSnapshots(events)).toBe(loads);
    expectIncreasingSequenceIds(events);
    // The last page leaves with ctx.close(): its changes may or may not be stored before the read.
    for (const text of ['"leaving"', '"gone"']) {
      const changes = events.filter((e) => e.type === 3 && JSON.stringify(e.data).includes(text)).length;
      expect({ text, changes: Math.min(changes, loads - 1) }).toEqual({ text, changes: loads - 1 });
    }
    // Each load's first sequenceId went to its recording-meta event, stored as metadata: no other
    // id may be missing, and each missing one comes right before a page's first events.
    const bySeq = new Map(events.map((e) => [e.sequenceId as number, e]));
    const last = events[events.length - 1].sequenceId as number;
    const missing = Array.from({ length: last }, (_, i) => i + 1).filter((s) => !bySeq.has(s));
    const detail = missing.map((m) => `${m}: before ${bySeq.get(m - 1)?.type} after ${bySeq.get(m + 1)?.type}`);
    expect({ count: missing.length, detail }).toEqual({ count: loads, detail: expect.any(Array) });
    for (const m of missing) expect([0, 4]).toContain(bySeq.get(m + 1)?.type);
  });
});
