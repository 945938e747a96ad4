// Server-made keyframes against the real nats-server and Chromium: a page recorded by rrweb without
// any checkout (one FullSnapshot at the start, as rrweb's official client records) is stored in
// batches; the keyframe maker replays it in Chromium and serialises the replayed page at several
// moments, stored as `kf` messages. Then: a windowed read from such a moment starts with the
// keyframe (its Meta and FullSnapshot at the moment) and goes on with the recording's events after
// it; a screenshot rendered from each keyframe equals the one replayed from the start at moments
// after it (after inputs, scrolls, style changes, removed nodes); the whole read is byte for byte
// what it was; deleting the recording removes the keyframes.
import { randomBytes, randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import sharp from 'sharp';
import { Browser, chromium } from 'playwright-core';
import { summarizeBatch } from '../../src/domain/batch-summary';
import type { EventStore, RawEvent } from '../../src/domain/event-store';
import type { RrwebEvent } from '../../src/domain/rrweb-event';
import { keyframeMoments } from '../../src/domain/server-keyframes';
import { JetStreamEventStore } from '../../src/infrastructure/nats/event-store';
import type { NatsClient } from '../../src/infrastructure/nats/nats-connection';
import { KeyframeMaker } from '../../src/keyframes/keyframe-maker';
import { eventsJson } from '../../src/keyframes/server-keyframes.service';
import { eventWindow } from '../../src/recordings/event-window';
import { RecordingEventsService } from '../../src/recordings/recording-events.service';
import type { WindowHints } from '../../src/recordings/window-hints.service';
import { BrowserPool } from '../../src/rendering/browser-pool/browser-pool';
import { ScreenshotRenderer } from '../../src/rendering/screenshot/screenshot-renderer';
import { RecordingRenderSource } from '../../src/rendering/shared/recording-render-source';
import { natsClient } from '../e2e/projections-fixtures';
import { CHROMIUM_ARGS } from '../harness/browser';
import { recordWithoutCheckouts } from './server-keyframes-fixtures';

jest.setTimeout(300_000);

const CHROMIUM = '/usr/bin/chromium';
const VIEWPORT = { width: 800, height: 600 };
/** Both images are rendered by the same Chromium from the same DOM: pixels must match, bar a 0.1% margin. */
const MIN_IDENTICAL_PIXELS = 0.999;

async function identicalShare(a: Buffer, b: Buffer): Promise<number> {
  const raw = (img: Buffer) => sharp(img).flatten({ background: '#ffffff' }).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const [pa, pb] = await Promise.all([raw(a), raw(b)]);
  expect([pb.info.width, pb.info.height]).toEqual([pa.info.width, pa.info.height]);
  let same = 0;
  for (let i = 0; i < pa.data.length; i += 3) if (pa.data[i] === pb.data[i] && pa.data[i + 1] === pb.data[i + 1] && pa.data[i + 2] === pb.data[i + 2]) same++;
  return same / (pa.data.length / 3);
}

const bytesOf = async (runs: AsyncIterable<RawEvent[]>) => {
  const parts: Buffer[] = [];
  for await (const run of runs) for (const e of run) parts.push(Buffer.from(e.json), Buffer.from([0x0a]));
  return Buffer.concat(parts);
};

describe('server-made keyframes (nats-server, Chromium)', () => {
  const tenantId = `t_skf_${randomBytes(4).toString('hex')}`;
  const recordingId = randomUUID();
  let nats: NatsClient;
  let recorder: Browser;
  let pool: BrowserPool;
  let store: JetStreamEventStore;
  let source: RecordingRenderSource;
  let events: RrwebEvent[];
  let moments: number[];
  let wholeBefore: Buffer;

  beforeAll(async () => {
    nats = await natsClient();
    recorder = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    const context = await recorder.newContext({ viewport: VIEWPORT, deviceScaleFactor: 1 });
    events = (await recordWithoutCheckouts(await context.newPage())).sort((a, b) => a.timestamp - b.timestamp);
    await context.close();
    expect(events.filter((e) => e.type === 2)).toHaveLength(1); // no checkout: one FullSnapshot
    store = new JetStreamEventStore(nats, 10_000);
    // No keyframe index here (ClickHouse): windows plan from every header, as without a hint.
    const hints = { withHint: async (_t: string, _r: string, w: unknown) => w } as unknown as WindowHints;
    source = new RecordingRenderSource(store as EventStore, new RecordingEventsService(store as EventStore), hints);
    pool = new BrowserPool({ chromiumPath: CHROMIUM, concurrency: 2, queueLimit: 8, timeoutMs: 60_000 });
    for (let i = 0, b = 0; i < events.length; i += 3, b++) {
      const chunk = events.slice(i, i + 3);
      const payload = Buffer.from(JSON.stringify(chunk), 'utf8');
      await store.appendBatch(tenantId, recordingId, `b${b}`, payload, summarizeBatch(chunk, payload.length));
    }
    wholeBefore = await bytesOf(store.readRaw(tenantId, recordingId));

    // The maker's part of ServerKeyframesService.makeFor, with a spacing for a recording of seconds.
    const raw: RawEvent[] = [];
    for await (const run of store.readRaw(tenantId, recordingId)) raw.push(...run);
    moments = keyframeMoments(
      raw.map((e) => ({ type: e.type, timestamp: e.timestamp, bytes: e.json.length })),
      undefined,
      { everyMs: 1200, everyBytes: 0, max: 10 },
    );
    expect(moments.length).toBeGreaterThanOrEqual(4);
    const made = await new KeyframeMaker(pool, 60_000).make('k', eventsJson(raw), raw[0].timestamp, VIEWPORT, moments);
    expect(made.failed).toBeUndefined();
    expect(made.made.map((k) => k.ts)).toEqual(moments);
    // Stored as the service stores them (gzip), and every other one plain (a header without enc).
    for (const [i, k] of made.made.entries())
      await store.appendKeyframe(
        tenantId,
        recordingId,
        { v: 1, ts: k.ts, ok: true, ...(i % 2 ? {} : { enc: 'gzip' as const }) },
        i % 2 ? Buffer.from(k.json) : gzipSync(k.json),
      );
    // A failed attempt is remembered in the stream and changes no read.
    await store.appendKeyframe(tenantId, recordingId, { v: 1, ts: moments[moments.length - 1] + 1, ok: false, reason: 'test' }, new Uint8Array(0));
  });

  afterAll(async () => {
    await pool?.close();
    await recorder?.close();
    await nats?.close();
  });

  it('keeps the node ids of the recording: a keyframe holds the ids of the nodes the events after it change', async () => {
    const [meta, full] = await readWindow(moments[1] + 1, 2);
    expect(meta).toMatchObject({ type: 4, timestamp: moments[1], data: { width: VIEWPORT.width, height: VIEWPORT.height } });
    expect(full).toMatchObject({ type: 2, timestamp: moments[1] });
    const ids = new Set<number>();
    const walk = (n: { id: number; childNodes?: unknown[] }) => {
      ids.add(n.id);
      for (const c of n.childNodes ?? []) walk(c as { id: number });
    };
    walk((full.data as { node: { id: number } }).node);
    const first = events.find((e) => e.type === 2)!;
    expect(ids.has((first.data as { node: { id: number } }).node.id)).toBe(true);
    // Every node an input or scroll after the moment names is in the keyframe (or added after it).
    const added = new Set(
      events.flatMap((e) => (e.type === 3 && e.data.source === 0 ? (e.data.adds as { node: { id: number } }[]).map((a) => a.node.id) : [])),
    );
    const later = events.filter((e) => e.timestamp > moments[1] && e.type === 3 && (e.data.source === 5 || e.data.source === 3));
    expect(later.length).toBeGreaterThan(0);
    for (const e of later) expect(ids.has(e.data.id as number) || added.has(e.data.id as number)).toBe(true);
  });

  async function readWindow(from: number, limit?: number): Promise<RrwebEvent[]> {
    const out: RrwebEvent[] = [];
    for await (const e of store.read(tenantId, recordingId, { window: eventWindow({ from: { kind: 'epoch', value: from }, limit }) })) out.push(e);
    return out;
  }

  it('starts a window at the server keyframe, then the events after its moment', async () => {
    const last = events[events.length - 1].timestamp;
    for (const t of moments) {
      const got = await readWindow(Math.min(t + 10, last));
      expect(got.slice(0, 2).map((e) => [e.type, e.timestamp])).toEqual([
        [4, t],
        [2, t],
      ]);
      const after = events.filter((e) => e.timestamp > t);
      expect(got.slice(2).map((e) => [e.type, e.timestamp])).toEqual(after.map((e) => [e.type, e.timestamp]));
    }
    // Before the first server keyframe: the recording's own first keyframe.
    expect((await readWindow(moments[0] - 1, 1))[0].timestamp).toBe(events[0].timestamp);
  });

  it('leaves the whole read unchanged, byte for byte', async () => {
    expect((await bytesOf(store.readRaw(tenantId, recordingId))).equals(wholeBefore)).toBe(true);
    const counts = await store.messageCounts(tenantId, recordingId);
    expect(counts.kf).toBe(moments.length + 1);
  });

  it('renders every moment after each server keyframe as replaying from the start does, and the moments differ', async () => {
    const last = events[events.length - 1].timestamp;
    const at = moments.flatMap((t, k) => {
      const next = moments[k + 1] ?? last;
      return [t, Math.round((t + next) / 2), next - 1];
    });
    const windowed = new ScreenshotRenderer(pool, { timeoutMs: 60_000 });
    const whole = new ScreenshotRenderer(pool, { timeoutMs: 60_000, warmPages: 0 });
    const shares: number[] = [];
    try {
      for (const value of [...new Set(at)].sort((a, b) => b - a)) {
        const resolved = await source.resolve(tenantId, recordingId);
        const time = { kind: 'epoch', value } as const;
        const a = await windowed.render({
          tenantId,
          contentKey: resolved.contentKey,
          events: resolved.events,
          around: resolved.around,
          time,
          format: 'png',
          ...VIEWPORT,
        });
        const b = await whole.render({ tenantId, contentKey: 'whole', events, time, format: 'png', ...VIEWPORT });
        const share = await identicalShare(a.bytes, b.bytes);
        shares.push(share);
        if (share < MIN_IDENTICAL_PIXELS) console.log(`moment ${value - events[0].timestamp} ms: ${(share * 100).toFixed(3)}% identical pixels`);
        expect(share).toBeGreaterThanOrEqual(MIN_IDENTICAL_PIXELS);
      }
      console.log(`${moments.length} server keyframes, ${shares.length} moments: identical pixels min ${(Math.min(...shares) * 100).toFixed(3)}%`);
      // Cold pages opened from the keyframes (newest first: one per keyframe), not from the start.
      expect(windowed.coldRenders).toBeGreaterThanOrEqual(moments.length - 1);
      const first = await whole.render({ tenantId, contentKey: 'whole', events, time: { kind: 'epoch', value: moments[0] }, format: 'png', ...VIEWPORT });
      const end = await whole.render({ tenantId, contentKey: 'whole', events, time: { kind: 'epoch', value: last }, format: 'png', ...VIEWPORT });
      expect(await identicalShare(first.bytes, end.bytes)).toBeLessThan(0.95);
    } finally {
      await Promise.all([windowed.close(), whole.close()]);
    }
  });

  it('deletes the keyframes with the recording', async () => {
    await store.deleteRecording(tenantId, recordingId);
    expect(await store.messageCounts(tenantId, recordingId)).toMatchObject({ ev: 0, meta: 0, kf: 0 });
  });
});
