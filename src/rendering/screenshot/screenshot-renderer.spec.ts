import { createHash } from 'node:crypto';
import type { RrwebEvent } from '../../domain/rrweb-event';
import type { BrowserLease, BrowserPool } from '../browser-pool/browser-pool';
import { ScreenshotRenderer, ScreenshotRequest } from './screenshot-renderer';

class MockReplayPage {
  busy = false;
  closed = false;
  shots: number[] = [];
  gate?: Promise<void>;
  fail = false;
  constructor(
    readonly generation: number,
    readonly events: RrwebEvent[],
  ) {}
  async shoot(offset: number): Promise<Buffer> {
    this.shots.push(offset);
    await this.gate;
    if (this.fail) throw new Error('page.evaluate: Execution context was destroyed');
    return Buffer.from(`png@${offset}`);
  }
  async close(): Promise<void> {
    this.closed = true;
  }
}

const mockOpened: MockReplayPage[] = [];
jest.mock('./replay-page', () => ({
  ReplayPage: {
    open: jest.fn(async (_browser: unknown, generation: number, json: string) => {
      const page = new MockReplayPage(generation, JSON.parse(json));
      mockOpened.push(page);
      return page;
    }),
  },
}));
jest.mock('./image-encoder', () => ({
  encodeImage: jest.fn(async (png: Buffer, o: { format: string; width: number; height: number; quality: number }) =>
    Buffer.from(`${png.toString()}|${o.format}|${o.width}x${o.height}|q${o.quality}`),
  ),
}));

const events: RrwebEvent[] = [
  { type: 3, timestamp: 1500, data: {} },
  { type: 4, timestamp: 1000, data: { href: 'https://example.com', width: 800, height: 600 } },
  { type: 2, timestamp: 1001, data: {} },
  { type: 3, timestamp: 2000, data: {} },
];

function setup(warmPages?: number) {
  let generation = 1;
  let runs = 0;
  let isolated = false;
  const keys: (string | undefined)[] = [];
  const pool = {
    run: async <T>(task: (l: BrowserLease) => Promise<T>, options: { key?: string } = {}) => {
      runs++;
      keys.push(options.key);
      return task({ browser: {} as BrowserLease['browser'], generation, signal: new AbortController().signal, isolated });
    },
  } as unknown as BrowserPool;
  const rendered: number[] = [];
  const renderer = new ScreenshotRenderer(pool, { timeoutMs: 1000, warmPages, onRendered: (s) => rendered.push(s) });
  return {
    renderer,
    rendered,
    runs: () => runs,
    keys,
    newBrowser: () => generation++,
    /** The next leases are retries after a crash, alone in a browser of their own. */
    isolate: (on: boolean) => (isolated = on),
  };
}

const req = (over: Partial<ScreenshotRequest> = {}): ScreenshotRequest => ({
  tenantId: 't1',
  contentKey: 'rec-1@4',
  events,
  time: { kind: 'offset', value: 0 },
  format: 'png',
  ...over,
});

beforeEach(() => {
  mockOpened.length = 0;
});

describe('ScreenshotRenderer', () => {
  it('opens one page per recording, sorted, and seeks it for later positions', async () => {
    const { renderer } = setup();
    const a = await renderer.render(req({ time: { kind: 'offset', value: 250 } }));
    const b = await renderer.render(req({ time: { kind: 'percent', value: 100 }, events: () => Promise.reject(new Error('not needed')) }));
    expect(mockOpened).toHaveLength(1);
    expect(mockOpened[0].events.map((e) => e.timestamp)).toEqual([1000, 1001, 1500, 2000]);
    expect(mockOpened[0].shots).toEqual([250.5, 1000.5]); // inclusive of events at the position
    expect(a.bytes.toString()).toBe('png@250.5|png|1280x960|q0'); // height from the 800x600 Meta viewport
    expect(b.contentType).toBe('image/png');
    expect(renderer.warmHits).toBe(1);
    expect(renderer.coldRenders).toBe(1);
  });

  it('reports the seconds of each browser render, not of cache hits or failures', async () => {
    const { renderer, rendered } = setup();
    await renderer.render(req());
    await renderer.render(req()); // image cache
    await renderer.render(req({ time: { kind: 'offset', value: 500 } })); // warm page
    expect(rendered).toHaveLength(2);
    for (const s of rendered) expect(s).toBeGreaterThanOrEqual(0);
    mockOpened[0].fail = true;
    await expect(renderer.render(req({ time: { kind: 'offset', value: 700 } }))).rejects.toThrow();
    expect(rendered).toHaveLength(2);
  });

  it('answers a repeat from the image cache with a strong sha256 ETag', async () => {
    const { renderer, runs } = setup();
    const first = await renderer.render(req({ format: 'jpeg', width: 100, quality: 40 }));
    const again = await renderer.render(req({ format: 'jpeg', width: 100, quality: 40 }));
    expect(again).toBe(first);
    expect(runs()).toBe(1);
    expect(renderer.imageCacheHits).toBe(1);
    expect(first.etag).toBe(`"${createHash('sha256').update(first.bytes).digest('base64url')}"`);
    expect(first.contentType).toBe('image/jpeg');
    expect(first.bytes.toString()).toBe('png@1.5|jpeg|100x75|q40'); // offset 0 shows the first snapshot (at +1 ms)
    // PNG ignores quality, so it does not split the cache.
    const p1 = await renderer.render(req({ quality: 10 }));
    const p2 = await renderer.render(req({ quality: 90 }));
    expect(p2).toBe(p1);
  });

  it('forgets every cached image and warm page of a deleted tenant, and only of that tenant', async () => {
    const { renderer, runs } = setup();
    await renderer.render(req({ tenantId: 't1' }));
    await renderer.render(req({ tenantId: 't2' }));
    expect(runs()).toBe(2);
    renderer.forgetTenant('t1');
    expect(mockOpened[0].closed).toBe(true);
    expect(mockOpened[1].closed).toBe(false);
    await renderer.render(req({ tenantId: 't2' }));
    expect(runs()).toBe(2); // t2's image is still cached
    await renderer.render(req({ tenantId: 't1' }));
    expect(runs()).toBe(3); // t1's was dropped: rendered again, on a new page
    expect(mockOpened).toHaveLength(3);
  });

  it('shares one render between identical concurrent requests', async () => {
    const { renderer, runs } = setup();
    const [a, b] = await Promise.all([renderer.render(req()), renderer.render(req())]);
    expect(a).toBe(b);
    expect(runs()).toBe(1);
  });

  it('uses a temporary page while the warm one is busy, and closes it', async () => {
    const { renderer } = setup();
    await renderer.render(req());
    let open!: () => void;
    mockOpened[0].gate = new Promise((r) => (open = r));
    const slow = renderer.render(req({ time: { kind: 'offset', value: 100 } }));
    await new Promise((r) => setImmediate(r));
    await renderer.render(req({ time: { kind: 'offset', value: 200 } }));
    expect(mockOpened).toHaveLength(2);
    expect(mockOpened[1].closed).toBe(true);
    open();
    await slow;
    expect(mockOpened[0].closed).toBe(false);
  });

  it('reopens the page after the browser was replaced or a shot failed', async () => {
    const { renderer, newBrowser } = setup();
    await renderer.render(req());
    newBrowser();
    await renderer.render(req({ time: { kind: 'offset', value: 1 } }));
    expect(mockOpened).toHaveLength(2);
    expect(mockOpened[0].closed).toBe(true);
    mockOpened[1].fail = true;
    await expect(renderer.render(req({ time: { kind: 'offset', value: 2 } }))).rejects.toThrow(/Execution context/);
    expect(mockOpened[1].closed).toBe(true);
    await renderer.render(req({ time: { kind: 'offset', value: 2 } }));
    expect(mockOpened).toHaveLength(3);
  });

  it('keeps at most warmPages pages, closing the least recently used', async () => {
    const { renderer } = setup(1);
    await renderer.render(req({ contentKey: 'a' }));
    await renderer.render(req({ contentKey: 'b' }));
    expect(mockOpened.map((p) => p.closed)).toEqual([true, false]);
    await renderer.close();
    expect(mockOpened[1].closed).toBe(true);
  });

  it('opens and closes a page per render when warm pages are off', async () => {
    const { renderer } = setup(0);
    await renderer.render(req());
    await renderer.render(req({ time: { kind: 'offset', value: 5 } }));
    expect(mockOpened).toHaveLength(2);
    expect(mockOpened.every((p) => p.closed)).toBe(true);
  });

  it('refuses positions outside the recording and recordings without a snapshot with 422, before any browser work', async () => {
    const { renderer, runs } = setup();
    await expect(renderer.render(req({ time: { kind: 'epoch', value: 2001 } }))).rejects.toMatchObject({ code: 'unprocessable' });
    await expect(renderer.render(req({ contentKey: 'no-snapshot', events: [events[0], events[3]] }))).rejects.toMatchObject({
      code: 'unprocessable',
      message: expect.stringMatching(/full snapshot/),
    });
    const snapshot = events.find((e) => e.type === 2)!;
    await expect(renderer.render(req({ contentKey: 'lone-snapshot', events: [snapshot] }))).rejects.toMatchObject({
      code: 'unprocessable',
      message: expect.stringMatching(/too few events/),
    });
    expect(runs()).toBe(0);
  });

  it('uses the requested size as the viewport when the recording has no Meta event', async () => {
    const { renderer } = setup();
    const noMeta = events.filter((e) => e.type !== 4);
    const img = await renderer.render(req({ contentKey: 'no-meta', events: noMeta, width: 640 }));
    expect(img).toMatchObject({ width: 640, height: 720 });
    const { ReplayPage } = jest.requireMock('./replay-page');
    expect(ReplayPage.open).toHaveBeenLastCalledWith(expect.anything(), 1, expect.any(String), { width: 640, height: 720 }, expect.anything());
  });

  it('never lets a render of one tenant use a page or an image of another, whatever the content key', async () => {
    const { renderer, keys } = setup();
    const a = await renderer.render(req({ tenantId: 'tenant-a' }));
    const b = await renderer.render(req({ tenantId: 'tenant-b' }));
    expect(mockOpened).toHaveLength(2); // a page (and so a browser context) each
    expect(b).not.toBe(a);
    await renderer.render(req({ tenantId: 'tenant-b', time: { kind: 'offset', value: 9 } }));
    expect(mockOpened[1].shots).toEqual([1.5, 9.5]);
    expect(mockOpened[0].shots).toEqual([1.5]);
    // The pool remembers crashing recordings by tenant and content key.
    expect(new Set(keys).size).toBe(2);
    expect(keys[0]).toContain('tenant-a');
  });

  it('renders a retry after a crash on a page of its own, closed after it, leaving the warm page alone', async () => {
    const { renderer, isolate } = setup();
    await renderer.render(req());
    isolate(true);
    await renderer.render(req({ time: { kind: 'offset', value: 3 } }));
    expect(mockOpened).toHaveLength(2);
    expect(mockOpened.map((p) => p.closed)).toEqual([false, true]);
    isolate(false);
    await renderer.render(req({ time: { kind: 'offset', value: 4 } }));
    expect(mockOpened[0].shots).toEqual([1.5, 4.5]);
  });
});
