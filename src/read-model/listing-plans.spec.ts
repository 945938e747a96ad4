// Every plan of the listing (widening windows, deep pages, narrow filters) against the brute-force
// listing of the fake read model: filters on the latest value, random data, every page.
import { narrowPage } from './listing-narrow.plan';
import { VERIFY_MAX } from './listing.planner';
import { fakeListing as fake, id, NOW } from './testing/listing-model.fake';
import { randomListing, seeded } from './testing/random-listing';

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
    const rand = seeded(7);
    for (let run = 0; run < 12; run++) {
      const { ch, planner, expected } = fake(randomListing(rand));
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
