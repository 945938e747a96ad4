// The renderer with windowed reads: a cold page holds the events from the keyframe at or before the
// moment, a warm page serves the moments it holds, and it falls back to the whole recording where a
// window cannot place the moment as the whole recording does.
import type { RrwebEvent } from '../../domain/rrweb-event';
import type { BrowserLease, BrowserPool } from '../browser-pool/browser-pool';
import { ScreenshotRenderer, ScreenshotRequest, SEEK_PAST_MS, WindowLoader } from './screenshot-renderer';

class MockReplayPage {
  readonly generation = 1;
  busy = false;
  closed = false;
  shots: number[] = [];
  constructor(readonly events: RrwebEvent[]) {}
  async shoot(offset: number): Promise<Buffer> {
    this.shots.push(offset);
    return Buffer.from(`png@${this.events[0].timestamp + offset - SEEK_PAST_MS}`);
  }
  async close(): Promise<void> {
    this.closed = true;
  }
}

const mockOpened: MockReplayPage[] = [];
jest.mock('./replay-page', () => ({
  ReplayPage: {
    open: jest.fn(async (_browser: unknown, _generation: number, json: string) => {
      const page = new MockReplayPage(JSON.parse(json));
      mockOpened.push(page);
      return page;
    }),
  },
}));
jest.mock('./image-encoder', () => ({ encodeImage: jest.fn(async (png: Buffer) => png) }));

const meta = (timestamp: number, width = 800, height = 600): RrwebEvent => ({ type: 4, timestamp, data: { href: 'https://example.com', width, height } });
const full = (timestamp: number): RrwebEvent => ({ type: 2, timestamp, data: {} });
const change = (timestamp: number): RrwebEvent => ({ type: 3, timestamp, data: { source: 0 } });

// Keyframes at 1000, 200 000 (its snapshot 50 ms after its Meta) and 400 000, in a 1024x768 window.
const events: RrwebEvent[] = [meta(1000), full(1000), change(2000), change(150_000), meta(200_000, 1024, 768), full(200_050)];
for (let t = 210_000; t < 400_000; t += 10_000) events.push(change(t));
events.push(meta(400_000, 1024, 768), full(400_000));
for (let t = 410_000; t <= 600_000; t += 10_000) events.push(change(t));

/** Windows as the event store cuts them: from the last keyframe's Meta at or before `from`, to `to`. */
function windows(recording: readonly RrwebEvent[]) {
  const reads: { from: number; to: number; events: number }[] = [];
  const keyframes = recording.filter((e, i) => e.type === 4 && recording[i + 1]?.type === 2).map((e) => e.timestamp);
  const first = recording[0].timestamp;
  const last = recording[recording.length - 1].timestamp;
  const around: WindowLoader = async (bounds) => {
    const { from, to } = bounds(first, last);
    const start = keyframes.filter((k) => k <= from).pop() ?? first;
    const out = recording.filter((e) => e.timestamp >= start && e.timestamp <= to);
    reads.push({ from, to, events: out.length });
    return { events: out, span: { first, last } };
  };
  return { around, reads };
}

function setup(warmPages?: number) {
  const pool = {
    run: async <T>(task: (l: BrowserLease) => Promise<T>) =>
      task({ browser: {} as BrowserLease['browser'], generation: 1, signal: new AbortController().signal, isolated: false }),
  } as unknown as BrowserPool;
  return new ScreenshotRenderer(pool, { timeoutMs: 1000, warmPages });
}

let wholeReads = 0;
const whole = async () => {
  wholeReads++;
  return events;
};
const req = (around: WindowLoader, over: Partial<ScreenshotRequest> = {}): ScreenshotRequest => ({
  tenantId: 't1',
  contentKey: 'rec@9',
  events: whole,
  around,
  time: { kind: 'offset', value: 0 },
  format: 'png',
  ...over,
});

beforeEach(() => {
  mockOpened.length = 0;
  wholeReads = 0;
});

describe('ScreenshotRenderer with windowed reads', () => {
  it('opens a cold page from the keyframe before the moment, sized by the window then, without reading the whole recording', async () => {
    const renderer = setup();
    const { around, reads } = windows(events);
    const img = await renderer.render(req(around, { time: { kind: 'epoch', value: 450_000 } }));
    expect(img.bytes.toString()).toBe('png@450000');
    expect(mockOpened[0].events[0]).toEqual(meta(400_000, 1024, 768));
    expect(mockOpened[0].events.at(-1)!.timestamp).toBe(510_000); // a minute ahead, for warm seeks
    expect(mockOpened[0].shots).toEqual([50_000 + SEEK_PAST_MS]);
    expect(img.height).toBe(960); // 1280 wide in the 1024x768 window of that moment
    expect(reads).toEqual([{ from: 450_000, to: 510_000, events: 13 }]);
    expect(wholeReads).toBe(0);
  });

  it('seeks the warm page within what it holds; a moment outside it gets a page from its own keyframe', async () => {
    const renderer = setup();
    const { around, reads } = windows(events);
    await renderer.render(req(around, { time: { kind: 'epoch', value: 450_000 } }));
    await renderer.render(req(around, { time: { kind: 'epoch', value: 500_000 } }));
    expect(renderer.warmHits).toBe(1);
    expect(reads).toHaveLength(1);
    const later = await renderer.render(req(around, { time: { kind: 'epoch', value: 590_000 } }));
    const earlier = await renderer.render(req(around, { time: { kind: 'epoch', value: 250_000 } }));
    expect([later.bytes.toString(), earlier.bytes.toString()]).toEqual(['png@590000', 'png@250000']);
    expect(mockOpened.map((p) => p.events[0].timestamp)).toEqual([400_000, 400_000, 200_000]);
    expect(mockOpened.map((p) => p.closed)).toEqual([true, true, false]); // each replaced the warm page
    expect(renderer.coldRenders).toBe(3);
    expect(wholeReads).toBe(0);
  });

  it('answers a repeat from the image cache without reading, and keeps tenants apart', async () => {
    const renderer = setup();
    const { around, reads } = windows(events);
    const a = await renderer.render(req(around, { time: { kind: 'percent', value: 90 } }));
    const b = await renderer.render(req(around, { time: { kind: 'percent', value: 90 } }));
    expect(b).toBe(a);
    expect(reads).toHaveLength(1);
    const other = await renderer.render(req(around, { tenantId: 't2', time: { kind: 'percent', value: 90 } }));
    expect(other).not.toBe(a);
    expect(reads).toHaveLength(2);
    expect(mockOpened).toHaveLength(2);
  });

  it("reads the whole recording between a page view's Meta and its snapshot, where the previous page is shown", async () => {
    const renderer = setup();
    const { around } = windows(events);
    const img = await renderer.render(req(around, { time: { kind: 'epoch', value: 200_020 } }));
    expect(img.bytes.toString()).toBe('png@200020');
    expect(mockOpened[0].events).toHaveLength(events.length);
    expect(img.height).toBe(960); // still the first page's 800x600 window
    expect(wholeReads).toBe(1);
  });

  it('keeps the first snapshot rule: before it, the first snapshot, from a window of the start', async () => {
    const late = [{ type: 0, timestamp: 500, data: {} }, ...events];
    const renderer = setup();
    const { around } = windows(late);
    const img = await renderer.render(req(around, { events: async () => late }));
    expect(img.bytes.toString()).toBe('png@1000');
    expect(mockOpened[0].events[0].timestamp).toBe(500);
    expect(mockOpened[0].events.at(-1)!.timestamp).toBe(2000);
  });

  it('reads the whole recording for a poster, and with a cached summary (no warm page) reads only the window for a page', async () => {
    const renderer = setup(0);
    const { around, reads } = windows(events);
    await renderer.render(req(around, { time: { kind: 'poster' } }));
    expect(wholeReads).toBe(1);
    const img = await renderer.render(req(around, { time: { kind: 'epoch', value: 450_000 } }));
    expect(img.bytes.toString()).toBe('png@450000');
    expect(reads).toEqual([{ from: 450_000, to: 510_000, events: 13 }]);
    expect(wholeReads).toBe(1);
  });

  it('uses what a read that cannot window returns as the whole recording', async () => {
    const renderer = setup();
    const around: WindowLoader = async () => ({ events });
    const img = await renderer.render(req(around, { time: { kind: 'epoch', value: 450_000 } }));
    expect(img.bytes.toString()).toBe('png@450000');
    expect(mockOpened[0].events).toHaveLength(events.length);
    expect(wholeReads).toBe(0);
  });

  it('refuses a position outside the recording with the same 422', async () => {
    const renderer = setup();
    const { around } = windows(events);
    await expect(renderer.render(req(around, { time: { kind: 'offset', value: 10_000_000 } }))).rejects.toMatchObject({
      code: 'unprocessable',
      message: expect.stringContaining('is outside the recording'),
    });
  });
});
