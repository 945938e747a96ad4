// Every plan of the listing (widening windows, deep pages, narrow filters) against the brute-force
// listing of the fake read model: filters on the latest value, random data, every page.
import { narrowPage } from './listing-narrow.plan';
import { VERIFY_MAX } from './listing.planner';
import { fakeListing as fake, HOUR, id, NOW } from './testing/listing-model.fake';

describe('listing pages from recording_timeline', () => {
  it('filters on the latest value: an overwritten value no longer matches, a later one does', async () => {
    const batches: [string, number][] = [];
    const metadata: [string, string, string, number][] = [];
    for (let i = 0; i < 30; i++) {
      batches.push([id(i), NOW - i * 60_000]);
      metadata.push([id(i), 'plan', i % 3 === 0 ? 'pro' : 'free', 1]);
    }
    metadata.push([id(3), 'plan', 'free', 2], [id(4), 'plan', 'pro', 2]);
    const { ch, planner, expected } = fake({ batches, metadata });
    const pro = [{ key: 'plan', value: 'pro' }];
    const page = await planner.filteredPage('latest', pro, 3, 0, NOW);
    expect(page.rows.map((r) => r.recording_id)).toEqual([0, 4, 6, 9].map(id));
    expect(page.rows).toEqual(expected(pro, 3, 0));
    expect(page.details.metadata.filter((m) => m.recording_id === id(4))).toEqual([{ recording_id: id(4), key: 'plan', value: 'pro' }]);
    const narrow = await narrowPage(ch, 'latest', pro, 3, 0);
    expect(narrow!.rows).toEqual(expected(pro, 3, 0));
  });

  it('matches the brute-force listing on random data, for every plan, page and filter', async () => {
    let seed = 7;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    for (let run = 0; run < 12; run++) {
      const batches: [string, number][] = [];
      const metadata: [string, string, string, number][] = [];
      const n = 20 + rand(200);
      let seq = 1;
      for (let i = 0; i < n; i++) {
        const start = NOW - rand(48) * HOUR - rand(1000) * 1000;
        for (let b = 0; b < 1 + rand(3); b++) batches.push([id(i), start + b * (rand(10) === 0 ? 30 * HOUR : 5000)]);
        if (rand(20) === 0) batches.push([id(i), start]); // a redelivered batch
        metadata.push([id(i), 'plan', ['free', 'pro'][rand(2)], seq++], [id(i), 'country', `c${rand(4)}`, seq++]);
        if (rand(5) === 0) metadata.push([id(i), 'plan', ['free', 'pro'][rand(2)], seq++]);
      }
      for (let i = 0; i < 5; i++) batches.push([id(rand(n)), NOW - rand(100) * HOUR]); // late batches, older or newer
      const deleted = [id(rand(n)), id(rand(n))];
      const { ch, planner, expected } = fake({ batches, metadata, deleted });
      const tenant = `random-${run}`;
      for (const [limit, offset] of [
        [5, 0],
        [7, 3],
        [50, 0],
        [3, 40],
        [100, VERIFY_MAX - 50],
      ]) {
        expect((await planner.newestPage(tenant, limit, offset, NOW)).rows).toEqual(expected([], limit, offset));
        for (const filters of [
          [{ key: 'plan', value: 'pro' }],
          [
            { key: 'country', value: 'c1' },
            { key: 'plan', value: 'free' },
          ],
          [{ key: 'plan', value: 'none' }],
        ]) {
          if (offset + limit + 1 <= VERIFY_MAX)
            expect((await planner.filteredPage(tenant, filters, limit, offset, NOW)).rows).toEqual(expected(filters, limit, offset));
          expect((await narrowPage(ch, tenant, filters, limit, offset))?.rows).toEqual(expected(filters, limit, offset));
        }
      }
      // Deeper than VERIFY_MAX: the whole-window edge check.
      expect((await planner.newestPage(tenant, 100, VERIFY_MAX, NOW)).rows).toEqual(expected([], 100, VERIFY_MAX));
      expect((await planner.newestPage(tenant, 10, 0, NOW)).rows).toEqual(expected([], 10, 0));
    }
  });
});
