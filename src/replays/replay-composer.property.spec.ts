// The composer against an independent statement of the page-view rule, on random recordings.
import fc from 'fast-check';
import type { RrwebEvent } from '../domain/rrweb-event';
import { PAGE_VIEW_GAP_MS } from './replay-composer';
import { compose, CUSTOM, DCL, FS, INC, LOAD, META } from './testing/replay-source.fake';

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
