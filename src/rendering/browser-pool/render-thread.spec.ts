import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RenderThread } from './render-thread';

// A stand-in for render-worker.js speaking the same protocol: pages are names, images are bytes
// naming the moment. `open` of "slow" answers after 200 ms; `shoot` at -1 ends the thread.
const FAKE_WORKER = `
const { parentPort } = require('node:worker_threads');
const pages = new Set();
const closed = [];
parentPort.on('message', (m) => {
  const answer = (value, transfer) => m.id && parentPort.postMessage({ id: m.id, ok: true, value }, transfer || []);
  const fail = (message) => m.id && parentPort.postMessage({ id: m.id, ok: false, message });
  switch (m.op) {
    case 'launch': return m.chromiumPath === 'missing' ? fail('spawn ENOENT') : answer();
    case 'open': {
      const open = () => { pages.add(m.page); answer(); };
      return m.eventsJson === 'slow' ? setTimeout(open, 200) : open();
    }
    case 'shoot': {
      if (m.offsetMs === -1) process.exit(3);
      if (!pages.has(m.page)) return fail('Target page, context or browser has been closed');
      const bytes = new TextEncoder().encode('png at ' + m.offsetMs);
      return answer(bytes, [bytes.buffer]);
    }
    case 'keyframe': return answer(m.offsetMs === 0 ? null : 'keyframe ' + m.ts);
    case 'closePage': pages.delete(m.page); closed.push(m.page); return answer();
    case 'crashPage': pages.delete(m.page); parentPort.postMessage({ event: 'pageClosed', page: m.page }); return answer();
    case 'closeBrowser': parentPort.postMessage({ event: 'disconnected', browser: m.browser }); return answer();
    case 'closedPages': return answer(closed);
  }
});
`;

describe('RenderThread', () => {
  let dir: string;
  let thread: RenderThread;
  const viewport = { width: 100, height: 100 };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'render-thread-'));
    writeFileSync(join(dir, 'worker.js'), FAKE_WORKER);
    thread = new RenderThread(0, join(dir, 'worker.js'));
  });
  afterEach(async () => {
    await thread.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('opens pages in the thread, and shoots and makes keyframes there', async () => {
    const browser = await thread.launch('/usr/bin/chromium', 1000);
    expect(browser.isConnected()).toBe(true);
    const page = await browser.openReplayPage('[]', viewport, { timeoutMs: 1000 });
    const png = await page.shoot(1234);
    expect(Buffer.isBuffer(png)).toBe(true);
    expect(png.toString()).toBe('png at 1234');
    expect(await page.keyframeAt(5, 77)).toBe('keyframe 77');
    expect(await page.keyframeAt(0, 1)).toBeNull();
    await page.close();
    expect(page.closed).toBe(true);
    await expect(page.shoot(1)).rejects.toThrow(/has been closed/);
  });

  it('passes a failure on with its message', async () => {
    await expect(thread.launch('missing', 1000)).rejects.toThrow('spawn ENOENT');
  });

  it('reports a page the thread saw close, and a browser that disconnected', async () => {
    const browser = await thread.launch('/usr/bin/chromium', 1000);
    const page = await browser.openReplayPage('[]', viewport, { timeoutMs: 1000 });
    await thread.call({ op: 'crashPage', page: (page as unknown as { id: number }).id } as never);
    expect(page.closed).toBe(true);
    const gone = jest.fn();
    browser.on('disconnected', gone);
    await browser.close();
    expect(browser.isConnected()).toBe(false);
    expect(gone).toHaveBeenCalledTimes(1);
  });

  it('fails what was in flight as a crash when the thread stops, and starts a new thread on the next launch', async () => {
    const browser = await thread.launch('/usr/bin/chromium', 1000);
    const page = await browser.openReplayPage('[]', viewport, { timeoutMs: 1000 });
    const gone = jest.fn();
    browser.on('disconnected', gone);
    // The pool reads this message as a crash (browser-pool.ts, CRASHED): the render is retried.
    await expect(page.shoot(-1)).rejects.toThrow(/Browser has been closed/);
    expect(browser.isConnected()).toBe(false);
    expect(gone).toHaveBeenCalledTimes(1);
    expect(page.closed).toBe(true);
    await expect(browser.openReplayPage('[]', viewport, { timeoutMs: 1000 })).rejects.toThrow(/has been closed/);
    const again = await thread.launch('/usr/bin/chromium', 1000);
    const next = await again.openReplayPage('[]', viewport, { timeoutMs: 1000 });
    expect((await next.shoot(7)).toString()).toBe('png at 7');
  });

  it('gives up on a page whose render ran out of time at once, and closes it when it opens late', async () => {
    const browser = await thread.launch('/usr/bin/chromium', 1000);
    const abort = new AbortController();
    const started = Date.now();
    const opening = browser.openReplayPage('slow', viewport, { timeoutMs: 1000, signal: abort.signal });
    setTimeout(() => abort.abort(), 20);
    await expect(opening).rejects.toThrow(/aborted/);
    expect(Date.now() - started).toBeLessThan(150);
    await new Promise((r) => setTimeout(r, 300));
    expect(((await thread.call({ op: 'closedPages' } as never)) as number[]).length).toBe(1);
  });
});
