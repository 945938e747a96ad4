// A range of starts [from, to) on every plan of the listing (clamped windows, narrow filters, deep
// pages) against the brute-force listing of the fake read model, and the windows it clamps.
import type { StartedRange } from './listing-page.util';
import { VERIFY_MAX } from './listing.planner';
import { firstWindow } from './listing-window.util';
import { fakeListing as fake, HOUR, id, NOW } from './testing/listing-model.fake';
import { randomListing, seeded } from './testing/random-listing';

describe('listing pages within a range of starts', () => {
  it('clamps the first window to the range: it ends at `to` and starts no earlier than `from`', () => {
    expect(firstWindow(undefined, 10, NOW, 2, { from: NOW - 5 * HOUR, to: NOW - 4 * HOUR })).toEqual({
      since: NOW - 4 * HOUR - 10 * 60_000,
      top: NOW - 4 * HOUR,
      width: 10 * 60_000,
    });
    expect(firstWindow(undefined, 10, NOW, 2, { from: NOW - 4 * HOUR - 60_000, to: NOW - 4 * HOUR }).since).toBe(NOW - 4 * HOUR - 60_000);
    const w = firstWindow({ msPer: 1000, newest: NOW - 1 }, 10, NOW, 2, { to: NOW - HOUR });
    expect(w).toEqual({ since: NOW - HOUR - 20_000, top: NOW - HOUR, width: 20_000 });
    expect(firstWindow(undefined, 10, NOW, 2, { from: NOW - 60_000 }).since).toBe(NOW - 60_000);
  });

  it('matches the brute-force listing on random data, for every plan, page, filter and range', async () => {
    const rand = seeded(11);
    for (let run = 0; run < 8; run++) {
      const { planner, expected, queries } = fake(randomListing(rand));
      const ranges: StartedRange[] = [
        { from: NOW - 10 * HOUR, to: NOW - 9 * HOUR },
        { from: NOW - 30 * HOUR },
        { to: NOW - 20 * HOUR },
        { from: NOW - 47 * HOUR, to: NOW - 2 * HOUR },
        { from: NOW + HOUR },
      ];
      for (const started of ranges)
        for (const [limit, offset] of [
          [5, 0],
          [7, 3],
          [3, 40],
          [100, VERIFY_MAX - 50],
        ])
          for (const filters of [[], [{ key: 'plan', value: 'pro' }]]) {
            const tenant = `range-${run}`;
            queries.length = 0;
            const page = await planner.page(tenant, { filters, limit, offset, started });
            expect(page.rows).toEqual(expected(filters, limit, offset, undefined, started));
          }
    }
  });

  it('reads no window older than the range', async () => {
    const batches: [string, number][] = [];
    for (let i = 0; i < 300; i++) batches.push([id(i), NOW - i * 60_000]);
    const { planner, expected, queries } = fake({ batches });
    const started = { from: NOW - 100 * 60_000, to: NOW - 90 * 60_000 };
    const page = await planner.page('narrow-range', { filters: [], limit: 50, offset: 0, started });
    expect(page.rows).toEqual(expected([], 50, 0, undefined, started));
    expect(page.rows.map((r) => r.recording_id)).toEqual([91, 92, 93, 94, 95, 96, 97, 98, 99, 100].map(id));
    const sinces = queries.flatMap((q) => [...q.matchAll(/min_ts >= \(?(-?\d+)/g)].map((m) => Number(m[1])));
    expect(sinces.length).toBeGreaterThan(0);
    expect(Math.min(...sinces)).toBeGreaterThanOrEqual(started.from);
  });
});
