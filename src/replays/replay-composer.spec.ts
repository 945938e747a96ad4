import fc from 'fast-check';
import { AppError } from '../common/app-error';
import type { RecordingEventSource } from '../domain/event-store';
import { EventType, ReadEvent, RrwebEvent } from '../domain/rrweb-event';
import { splitPageViews } from './page-view';
import { composeEventsInMemory, composeReplay, InMemoryRecording, PAGE_VIEW_GAP_MS } from './replay-composer';

const { FullSnapshot: FS, IncrementalSnapshot: INC, Meta: META, Custom: CUSTOM, DomContentLoaded: DCL, Load: LOAD } = EventType;
const TENANT = 'tenant-1';

/** Events of one recording from [type, timestamp] pairs; data.i is the position, to trace events. */
function rec(recordingId: string, spec: Array<[number, number]>): InMemoryRecording {
  return { recordingId, events: spec.map(([type, timestamp], i) => ({ type, timestamp, data: { i } })) };
}

const view = (events: ReadEvent[]) => events.map((e) => [e.recordingId, e.data.i, e.timestamp]);

/**
 * Serves recordings and watches how they are read. Each event is handed out as a revocable proxy
 * that is revoked when the reader asks for the next one, so a composer that kept events around
 * would throw; `live` counts events handed out and not yet revoked.
 */
class FakeSource implements RecordingEventSource {
  reads: string[] = [];
  open = 0;
  maxOpen = 0;
  live = 0;
  maxLive = 0;

  constructor(private readonly recordings: (id: string, readNumber: number) => Iterable<RrwebEvent> | undefined) {}

  static of(recordings: readonly InMemoryRecording[]): FakeSource {
    const byId = new Map(recordings.map((r) => [r.recordingId, r.events]));
    return new FakeSource((id) => byId.get(id));
  }

  async *read(tenantId: string, recordingId: string): AsyncGenerator<RrwebEvent> {
    expect(tenantId).toBe(TENANT);
    this.reads.push(recordingId);
    this.maxOpen = Math.max(this.maxOpen, ++this.open);
    let revokeLast: (() => void) | undefined;
    const release = () => {
      if (!revokeLast) return;
      revokeLast();
      revokeLast = undefined;
      this.live--;
    };
    try {
      const readNumber = this.reads.filter((id) => id === recordingId).length;
      for (const event of this.recordings(recordingId, readNumber) ?? []) {
        const { proxy, revoke } = Proxy.revocable({ ...event }, {});
        revokeLast = revoke;
        this.maxLive = Math.max(this.maxLive, ++this.live);
        yield proxy;
        release();
      }
    } finally {
      release();
      this.open--;
    }
  }
}

async function collect(iterable: AsyncIterable<ReadEvent>): Promise<ReadEvent[]> {
  const out: ReadEvent[] = [];
  for await (const event of iterable) out.push(event);
  return out;
}

/** Both entry points must agree; returns the result. */
async function compose(recordings: InMemoryRecording[]): Promise<ReadEvent[]> {
  const inMemory = composeEventsInMemory(recordings);
  const source = FakeSource.of(recordings);
  const streamed = await collect(
    composeReplay(
      TENANT,
      recordings.map((r) => r.recordingId),
      source,
    ),
  );
  expect(streamed).toEqual(inMemory);
  expect(source.open).toBe(0);
  return inMemory;
}

describe('page views', () => {
  it('start at a FullSnapshot, with the Meta events right before it', () => {
    const events = rec('r', [
      [META, 1],
      [FS, 1],
      [INC, 2],
      [CUSTOM, 3],
      [META, 4],
      [CUSTOM, 5],
      [META, 6],
      [FS, 6],
      [INC, 7],
    ]).events;
    expect(splitPageViews('r', events).map((v) => [v.startIndex, v.endIndex, v.startTimestamp, v.endTimestamp])).toEqual([
      [0, 4, 1, 3],
      [4, 9, 4, 7],
    ]);
  });

  it('start at the DomContentLoaded and Load events a page load emits before its Meta', () => {
    // What rrweb's record emits on each page of a tab: DomContentLoaded, Load, Meta, FullSnapshot.
    const events = rec('r', [
      [DCL, 1],
      [LOAD, 1],
      [META, 2],
      [FS, 2],
      [INC, 3],
      [DCL, 50],
      [LOAD, 51],
      [CUSTOM, 51],
      [META, 52],
      [FS, 52],
      [INC, 53],
      [LOAD, 60],
      [INC, 61],
    ]).events;
    expect(splitPageViews('r', events).map((v) => [v.startIndex, v.endIndex, v.startTimestamp, v.endTimestamp])).toEqual([
      [0, 5, 1, 3],
      [5, 13, 50, 61], // a Load after the snapshot, followed by other events, stays in its page view
    ]);
  });

  it('leave a Meta separated from the FullSnapshot by another event with the previous page view', () => {
    const events = rec('r', [
      [META, 1],
      [FS, 1],
      [META, 2],
      [INC, 3],
      [FS, 4],
      [INC, 5],
    ]).events;
    expect(splitPageViews('r', events).map((v) => [v.startIndex, v.count])).toEqual([
      [0, 4],
      [4, 2],
    ]);
  });

  it('put events before the first FullSnapshot into the first page view', () => {
    const events = rec('r', [
      [CUSTOM, 1],
      [INC, 2],
      [META, 3],
      [CUSTOM, 3],
      [FS, 3],
      [FS, 9],
    ]).events;
    expect(splitPageViews('r', events).map((v) => [v.startIndex, v.count, v.startTimestamp])).toEqual([
      [0, 5, 1],
      [5, 1, 9],
    ]);
  });

  it('make a recording without a FullSnapshot one page view, and an empty one none', () => {
    expect(
      splitPageViews(
        'r',
        rec('r', [
          [CUSTOM, 1],
          [INC, 2],
        ]).events,
      ),
    ).toHaveLength(1);
    expect(splitPageViews('r', [])).toEqual([]);
  });
});

describe('composeReplay', () => {
  it('orders page views across recordings by start and replaces idle time with the gap', async () => {
    const a = rec('a', [
      [META, 100],
      [FS, 100],
      [INC, 150],
      [META, 300],
      [FS, 300],
      [INC, 400],
    ]);
    const b = rec('b', [
      [META, 200],
      [FS, 200],
      [INC, 250],
    ]);
    const out = await compose([b, a]);
    const g = PAGE_VIEW_GAP_MS;
    expect(view(out)).toEqual([
      ['a', 0, 0],
      ['a', 1, 0],
      ['a', 2, 50],
      ['b', 0, 50 + g],
      ['b', 1, 50 + g],
      ['b', 2, 100 + g],
      ['a', 3, 100 + 2 * g],
      ['a', 4, 100 + 2 * g],
      ['a', 5, 200 + 2 * g],
    ]);
  });

  it('plays a page view that starts during another one after it, with the same gap', async () => {
    const a = rec('a', [
      [META, 100],
      [FS, 100],
      [INC, 900],
      [INC, 1000],
    ]);
    const b = rec('b', [
      [META, 500],
      [FS, 500],
      [INC, 600],
    ]);
    const out = await compose([a, b]);
    expect(view(out)).toEqual([
      ['a', 0, 0],
      ['a', 1, 0],
      ['a', 2, 800],
      ['a', 3, 900],
      ['b', 0, 900 + PAGE_VIEW_GAP_MS],
      ['b', 1, 900 + PAGE_VIEW_GAP_MS],
      ['b', 2, 1000 + PAGE_VIEW_GAP_MS],
    ]);
  });

  it('breaks ties on start time by recording id, then by position', async () => {
    const b = rec('b', [
      [FS, 10],
      [FS, 10],
    ]);
    const a = rec('a', [[FS, 10]]);
    const out = await compose([b, a]);
    expect(out.map((e) => [e.recordingId, e.data.i])).toEqual([
      ['a', 0],
      ['b', 0],
      ['b', 1],
    ]);
  });

  it('keeps every field and adds originalTimestamp and recordingId', async () => {
    const data = { node: { id: 1 }, initialOffset: { top: 0, left: 0 } };
    const event: RrwebEvent = { type: FS, timestamp: 1_700_000_000_123, data, sequenceId: 7, custom: 'x' };
    const [out] = await compose([{ recordingId: 'r1', events: [event] }]);
    expect(out).toEqual({ ...event, timestamp: 0, originalTimestamp: 1_700_000_000_123, recordingId: 'r1' });
    expect(Object.keys(out).slice(0, 3)).toEqual(['type', 'timestamp', 'data']);
  });

  it('groups Meta events before a FullSnapshot with the new page view', async () => {
    const a = rec('a', [
      [META, 10],
      [FS, 10],
      [INC, 20],
      [CUSTOM, 30],
      [META, 40],
      [CUSTOM, 41],
      [FS, 42],
      [INC, 50],
    ]);
    const out = await compose([a]);
    // The first page view ends with the custom event at 30; the second starts at the Meta of 40.
    expect(view(out)).toEqual([
      ['a', 0, 0],
      ['a', 1, 0],
      ['a', 2, 10],
      ['a', 3, 20],
      ['a', 4, 20 + PAGE_VIEW_GAP_MS],
      ['a', 5, 21 + PAGE_VIEW_GAP_MS],
      ['a', 6, 22 + PAGE_VIEW_GAP_MS],
      ['a', 7, 30 + PAGE_VIEW_GAP_MS],
    ]);
  });

  it('keeps leading events with the first page view and starts the replay at them', async () => {
    const a = rec('a', [
      [CUSTOM, 5],
      [META, 10],
      [FS, 10],
      [INC, 12],
    ]);
    const b = rec('b', [
      [META, 7],
      [FS, 7],
    ]);
    const out = await compose([a, b]);
    expect(view(out)).toEqual([
      ['a', 0, 0],
      ['a', 1, 5],
      ['a', 2, 5],
      ['a', 3, 7],
      ['b', 0, 7 + PAGE_VIEW_GAP_MS],
      ['b', 1, 7 + PAGE_VIEW_GAP_MS],
    ]);
  });

  it('renumbers a single recording from 0 too, with the gap between its page views', async () => {
    // One recording is not passed through: its timestamps also start at 0 and a reload's idle time
    // becomes PAGE_VIEW_GAP_MS, so one recording and a group of one compose the same way.
    const a = rec('a', [
      [META, 1000],
      [FS, 1000],
      [INC, 1500],
      [META, 60_000],
      [FS, 60_000],
      [INC, 60_010],
    ]);
    const out = await compose([a]);
    expect(out.map((e) => e.timestamp)).toEqual([0, 0, 500, 1500, 1500, 1510]);
    expect(out.map((e) => e.originalTimestamp)).toEqual([1000, 1000, 1500, 60_000, 60_000, 60_010]);
  });

  it('skips empty and unknown recordings and reads each id once', async () => {
    const a = rec('a', [
      [META, 1],
      [FS, 1],
    ]);
    const source = FakeSource.of([a, rec('empty', [])]);
    const out = await collect(composeReplay(TENANT, ['empty', 'a', 'unknown', 'a'], source));
    expect(view(out)).toEqual([
      ['a', 0, 0],
      ['a', 1, 0],
    ]);
    expect(source.reads).toEqual(['empty', 'a', 'unknown', 'a']); // one first read each, then one re-read
    expect(await collect(composeReplay(TENANT, [], source))).toEqual([]);
    expect(composeEventsInMemory([rec('e', [])])).toEqual([]);
  });

  it('refuses a recording given twice in memory', () => {
    expect(() => composeEventsInMemory([rec('a', []), rec('a', [])])).toThrow(TypeError);
  });

  it('fails with unavailable when a recording changed between its two reads', async () => {
    const first = rec('a', [
      [META, 1],
      [FS, 1],
      [INC, 5],
    ]).events;
    const second = rec('a', [
      [CUSTOM, 0],
      [META, 1],
      [FS, 1],
      [INC, 5],
    ]).events;
    const source = new FakeSource((_, n) => (n === 1 ? first : second));
    const error = await collect(composeReplay(TENANT, ['a'], source)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('unavailable');
    expect(source.open).toBe(0);
  });

  it('fails with unavailable (retry), not 404, when a recording is deleted between its two reads', async () => {
    const first = rec('a', [
      [META, 1],
      [FS, 1],
      [INC, 5],
    ]).events;
    const source = new FakeSource((_, n) => {
      if (n === 1) return first;
      throw new AppError('not_found', 'Recording not found (it was deleted while being read)');
    });
    const error = await collect(composeReplay(TENANT, ['a'], source)).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'unavailable' });
    expect(source.open).toBe(0);
  });

  it('leaves out events appended between the two reads', async () => {
    const first = rec('a', [
      [META, 1],
      [FS, 1],
    ]).events;
    const second = rec('a', [
      [META, 1],
      [FS, 1],
      [INC, 5],
    ]).events;
    const source = new FakeSource((_, n) => (n === 1 ? first : second));
    expect(await collect(composeReplay(TENANT, ['a'], source))).toHaveLength(2);
  });

  it('stops reading when aborted and closes the open read', async () => {
    const controller = new AbortController();
    const source = FakeSource.of([
      rec('a', [
        [META, 1],
        [FS, 1],
        [INC, 2],
        [INC, 3],
      ]),
    ]);
    const iterator = composeReplay(TENANT, ['a'], source, controller.signal);
    await iterator.next();
    controller.abort();
    await expect(iterator.next()).rejects.toMatchObject({ name: 'AbortError' });
    expect(source.open).toBe(0);
  });

  it('streams: holds one event at a time and re-reads once per run of page views', async () => {
    // Three large recordings generated on the fly, interleaved page views of 1000 events each.
    const pageViews = 8;
    const perView = 500;
    const generate = function* (id: string): Iterable<RrwebEvent> {
      const shift = Number(id.slice(1)) * 10;
      for (let p = 0; p < pageViews; p++) {
        const start = p * 100_000 + shift;
        yield { type: META, timestamp: start, data: { href: `https://x/${id}/${p}` } };
        yield { type: FS, timestamp: start, data: { node: {} } };
        for (let k = 2; k < perView; k++) yield { type: INC, timestamp: start + k, data: { source: 1, k } };
      }
    };
    const source = new FakeSource((id) => generate(id));
    let count = 0;
    let ordered = true;
    let last = -1;
    for await (const event of composeReplay(TENANT, ['r0', 'r1', 'r2'], source)) {
      count++;
      ordered &&= event.timestamp >= last;
      last = event.timestamp;
    }
    expect(count).toBe(3 * pageViews * perView);
    expect(ordered).toBe(true);
    expect(source.maxLive).toBe(1);
    expect(source.maxOpen).toBe(1);
    // Page views alternate between recordings: 3 first reads, then one read per page view.
    expect(source.reads).toHaveLength(3 + 3 * pageViews);
    expect(source.open).toBe(0);
  });

  it('keeps one read open across consecutive page views of the same recording', async () => {
    const a = rec('a', [
      [META, 1],
      [FS, 1],
      [META, 2],
      [FS, 2],
      [META, 3],
      [FS, 3],
    ]);
    const source = FakeSource.of([a]);
    await collect(composeReplay(TENANT, ['a'], source));
    expect(source.reads).toEqual(['a', 'a']);
  });
});

describe('composition properties', () => {
  const eventType = fc.oneof(
    { arbitrary: fc.constant(INC), weight: 5 },
    { arbitrary: fc.constantFrom(FS, META, CUSTOM), weight: 3 },
    { arbitrary: fc.constantFrom(0, 1, 6), weight: 1 },
  );
  const recording = fc.record({
    base: fc.integer({ min: 1_700_000_000_000, max: 1_700_000_005_000 }),
    steps: fc.array(fc.tuple(eventType, fc.nat(3000)), { maxLength: 40 }),
  });
  const recordings = fc.uniqueArray(fc.tuple(fc.string({ minLength: 1, maxLength: 3 }), recording), { selector: ([id]) => id, maxLength: 5 }).map((list) =>
    list.map(([recordingId, { base, steps }]) => {
      let t = base;
      const events = steps.map(([type, step], i) => ({ type, timestamp: (t += step % 7 === 0 ? 0 : step), data: { i } }));
      return { recordingId, events };
    }),
  );

  /** Independent statement of the page-view rule (lead-in: Meta, DomContentLoaded, Load): start index of each page view. */
  function referenceStarts(events: readonly RrwebEvent[]): number[] {
    const starts = events.length ? [0] : [];
    const fullSnapshots = events.flatMap((e, i) => (e.type === FS ? [i] : []));
    for (const f of fullSnapshots.slice(1)) {
      let start = f;
      const leadIn = (type: number) => type === META || type === DCL || type === LOAD;
      for (let j = f - 1; j >= 0 && (leadIn(events[j].type) || events[j].type === CUSTOM); j--) {
        if (leadIn(events[j].type)) start = j;
      }
      starts.push(start);
    }
    return starts;
  }

  it('is a renumbered, contiguous, start-ordered permutation of the page views', async () => {
    await fc.assert(
      fc.asyncProperty(recordings, async (input) => {
        const out = await compose(input);
        const total = input.reduce((n, r) => n + r.events.length, 0);
        expect(out).toHaveLength(total);
        if (total === 0) return;

        // A permutation: each input event exactly once, with its original timestamp.
        const seen = new Set(out.map((e) => `${e.recordingId}\u0000${e.data.i}`));
        expect(seen.size).toBe(total);
        for (const e of out) {
          const original = input.find((r) => r.recordingId === e.recordingId)!.events[e.data.i as number];
          expect(e.originalTimestamp).toBe(original.timestamp);
          expect(e.type).toBe(original.type);
        }

        // Starts at 0, never goes back.
        expect(out[0].timestamp).toBe(0);
        for (let k = 1; k < out.length; k++) expect(out[k].timestamp).toBeGreaterThanOrEqual(out[k - 1].timestamp);

        // Page views (by the reference rule) are contiguous, whole, in order, ordered by start, and
        // separated by exactly the gap; spacing inside each is kept.
        const pageViewOf = new Map<string, number[]>(
          input.map((r) => {
            const starts = referenceStarts(r.events);
            return [r.recordingId, r.events.map((_, i) => starts.filter((s) => s <= i).length - 1)];
          }),
        );
        let previous: { key: string; start: number; lastOut: number } | undefined;
        const done = new Set<string>();
        for (let k = 0; k < out.length; k++) {
          const e = out[k];
          const pv = pageViewOf.get(e.recordingId!)![e.data.i as number];
          const key = `${e.recordingId}\u0000${pv}`;
          if (key !== previous?.key) {
            expect(done.has(key)).toBe(false);
            if (previous) {
              done.add(previous.key);
              expect(e.timestamp - previous.lastOut).toBe(PAGE_VIEW_GAP_MS);
              expect(e.originalTimestamp).toBeGreaterThanOrEqual(previous.start);
            }
            expect(referenceStarts(input.find((r) => r.recordingId === e.recordingId)!.events)[pv]).toBe(e.data.i);
            previous = { key, start: e.originalTimestamp, lastOut: e.timestamp };
          } else {
            expect(e.data.i).toBe((out[k - 1].data.i as number) + 1);
            expect(e.timestamp - out[k - 1].timestamp).toBe(e.originalTimestamp - out[k - 1].originalTimestamp);
            previous.lastOut = e.timestamp;
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});
