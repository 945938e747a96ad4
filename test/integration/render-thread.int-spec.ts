// The render thread as the service runs it: the compiled pool and renderer (dist/, where the
// compiled worker is, so RENDER_THREAD=worker applies) driving the real Chromium from a thread of
// their own; and the thread stopping mid-render, which the caller does not see.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import sharp from 'sharp';
import { snapshotData } from '../e2e/rendering-e2e-fixtures';
import { pollUntil } from '../harness/poll-until';

type PoolModule = typeof import('../../src/rendering/browser-pool/browser-pool');
type RendererModule = typeof import('../../src/rendering/screenshot/screenshot-renderer');
type Pool = InstanceType<PoolModule['BrowserPool']>;
type Renderer = InstanceType<RendererModule['ScreenshotRenderer']>;

const DIST = join(__dirname, '../../dist/rendering');

jest.setTimeout(120_000);

/** Meta, a FullSnapshot with a red page, and a mouse move. */
function redPage() {
  const t = 1_700_000_000_000;
  return [
    { type: 4, timestamp: t, data: { href: 'https://example.com/', width: 320, height: 240 } },
    { type: 2, timestamp: t + 1, data: snapshotData({ attributes: { style: 'margin:0;background:#ff0000;height:240px' }, childNodes: [] }) },
    { type: 3, timestamp: t + 2, data: { source: 1, positions: [{ x: 1, y: 1, id: 5, timeOffset: 0 }] } },
  ];
}

describe('render thread', () => {
  let pool: Pool;
  let renderer: Renderer;
  const shot = (contentKey: string) =>
    renderer.render({ tenantId: 't', contentKey, events: redPage() as never, time: { kind: 'percent', value: 100 }, format: 'png', width: 320, height: 240 });

  beforeAll(async () => {
    const { BrowserPool } = (await import(join(DIST, 'browser-pool/browser-pool'))) as PoolModule;
    const { ScreenshotRenderer } = (await import(join(DIST, 'screenshot/screenshot-renderer'))) as RendererModule;
    pool = new BrowserPool({ chromiumPath: '/usr/bin/chromium', nice: 5, concurrency: 2, queueLimit: 8, timeoutMs: 15_000 });
    renderer = new ScreenshotRenderer(pool, { timeoutMs: 15_000 });
  });

  afterAll(async () => {
    await renderer.close();
    await pool.close();
  });

  it('renders in the thread: the image comes back whole', async () => {
    expect(pool.thread).toBe('worker');
    const image = await shot('red');
    const { data, info } = await sharp(image.bytes).raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height]).toEqual([320, 240]);
    const [r, g, b] = [data[0], data[1], data[2]];
    expect({ r, g, b }).toEqual({ r: 255, g: 0, b: 0 });
    expect(pool.crashes).toBe(0);
  });

  it('answers a render whose thread stopped under it, from a new thread', async () => {
    const thread = (pool as unknown as { renderThread: { worker?: { terminate(): Promise<number> } } }).renderThread;
    const launches = pool.launches;
    const rendering = shot('red, again'); // a new content key: a cold page, in the thread
    await pollUntil(
      async () => pool.inFlight,
      (n) => n === 1,
      10_000,
      5,
    );
    await thread.worker!.terminate();
    const image = await rendering;
    expect(image.bytes.length).toBeGreaterThan(100);
    expect(pool.crashes).toBe(1); // retried once, alone, in a fresh browser of a new thread
    expect(pool.launches).toBe(launches + 1);
    expect(thread.worker).toBeDefined();
    // The pool's own browser went with the old thread: the next render launches one, and works.
    expect((await shot('red, third')).bytes.length).toBeGreaterThan(100);
  });

  it("leaves playwright-core out of the service's thread: only a launch loads it", () => {
    // The whole service's modules, as main.ts loads them, in a process of their own.
    const loaded = execFileSync(
      process.execPath,
      [
        '-e',
        `require(${JSON.stringify(join(DIST, '../app.module'))}); console.log(Object.keys(require.cache).filter((f) => f.includes('playwright-core')).length)`,
      ],
      { encoding: 'utf8' },
    );
    expect(loaded.trim()).toBe('0');
  });
});
