import fc from 'fast-check';
import { TimestampMerger } from './event-order';

type Ev = { timestamp: number; sequenceId?: number; id: number; meta?: boolean };

/** The heap alone (push + drain): what `take` must give, event for event. */
function viaHeap(batches: { events: Ev[]; releaseBelow: number }[]): Ev[][] {
  const m = new TimestampMerger<Ev>((e) => !!e.meta);
  const runs = batches.map((b) => {
    m.push(b.events, b.releaseBelow);
    return [...m.drain()];
  });
  return [...runs, [...m.drainAll()]];
}

function viaTake(batches: { events: Ev[]; releaseBelow: number }[]): Ev[][] {
  const m = new TimestampMerger<Ev>((e) => !!e.meta);
  return [...batches.map((b) => m.take(b.events, b.releaseBelow)), [...m.drainAll()]];
}

const ev = fc.record({
  timestamp: fc.integer({ min: 0, max: 30 }),
  sequenceId: fc.option(fc.integer({ min: 0, max: 4 }), { nil: undefined }),
  meta: fc.boolean(),
});

/** Batches as the read builds them: sorted or not, and releaseBelow the min of later batches' minimum. */
const batches = fc.array(fc.tuple(fc.array(ev, { maxLength: 8 }), fc.boolean(), fc.boolean()), { maxLength: 8 }).map((raw) => {
  let id = 0;
  const bs = raw.map(([events, sorted]) => {
    const es = events.map((e) => ({ ...e, id: id++, meta: e.meta && e.timestamp % 7 === 0 }));
    if (sorted) es.sort((a, b) => a.timestamp - b.timestamp);
    return es;
  });
  const out: { events: Ev[]; releaseBelow: number }[] = [];
  let suffixMin = Number.POSITIVE_INFINITY;
  for (let k = bs.length - 1; k >= 0; k--) {
    // A batch without a summary (minTs -Infinity) holds back everything before it.
    const minTs = raw[k][2] ? Number.NEGATIVE_INFINITY : Math.min(...bs[k].map((e) => e.timestamp));
    out.unshift({ events: bs[k], releaseBelow: suffixMin });
    suffixMin = Math.min(suffixMin, minTs);
  }
  return out;
});

describe('TimestampMerger.take', () => {
  it('releases what push + drain release, in the same order, for any batches', () => {
    fc.assert(
      fc.property(batches, (bs) => {
        expect(viaTake(bs).map((r) => r.map((e) => e.id))).toEqual(viaHeap(bs).map((r) => r.map((e) => e.id)));
      }),
      { numRuns: 2000 },
    );
  });

  it('hands an ordered batch back as it is when all of it is released', () => {
    const m = new TimestampMerger<Ev>(() => false);
    const events = [
      { timestamp: 1, id: 0 },
      { timestamp: 1, id: 1 },
      { timestamp: 3, id: 2 },
    ];
    expect(m.take(events, 5)).toBe(events);
  });

  it('drops a repeated sequenceId at the same timestamp across batches on the fast path', () => {
    const m = new TimestampMerger<Ev>(() => false);
    expect(
      m
        .take(
          [
            { timestamp: 1, sequenceId: 7, id: 0 },
            { timestamp: 2, sequenceId: 7, id: 1 },
          ],
          2,
        )
        .map((e) => e.id),
    ).toEqual([0, 1]);
    expect(
      m
        .take(
          [
            { timestamp: 2, sequenceId: 7, id: 2 },
            { timestamp: 2, sequenceId: 8, id: 3 },
            { timestamp: 4, id: 4 },
          ],
          3,
        )
        .map((e) => e.id),
    ).toEqual([3]);
    expect([...m.drainAll()].map((e) => e.id)).toEqual([4]);
  });

  it('keeps events above releaseBelow for later and merges them with the next batch', () => {
    const m = new TimestampMerger<Ev>(() => false);
    expect(
      m
        .take(
          [
            { timestamp: 1, id: 0 },
            { timestamp: 5, id: 1 },
          ],
          3,
        )
        .map((e) => e.id),
    ).toEqual([0]);
    expect(
      m
        .take(
          [
            { timestamp: 3, id: 2 },
            { timestamp: 6, id: 3 },
          ],
          Infinity,
        )
        .map((e) => e.id),
    ).toEqual([2, 1, 3]);
  });
});
