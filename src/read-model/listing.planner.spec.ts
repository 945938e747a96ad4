// The planner over the fake read model: windows widened until they hold the page, the edge check,
// and what it remembers between pages.
import type { ClickHouse } from '../infrastructure/clickhouse/clickhouse-client';
import type { Sql } from '../infrastructure/clickhouse/sql';
import { ListingPlanner, VERIFY_MAX } from './listing.planner';
import { fakeListing as fake, HOUR, id, type Model, NOW } from './testing/listing-model.fake';

describe('listing pages from recording_timeline', () => {
  it('widens the window until the page and one more are in it, ordered like the full listing', async () => {
    const batches: [string, number][] = [];
    for (let i = 0; i < 40; i++) batches.push([id(i), NOW - i * HOUR], [id(i), NOW - i * HOUR + 5]);
    const { planner, expected } = fake({ batches });
    const page = await planner.newestPage('widen', 5, 10, NOW);
    expect(page.rows.map((r) => r.recording_id)).toEqual([10, 11, 12, 13, 14, 15].map(id));
    expect(page.rows).toEqual(expected([], 5, 10));
    expect(page.details.summaries.map((s) => s.recording_id).sort()).toEqual([10, 11, 12, 13, 14].map(id));
  });

  it('drops a recording that started before the window, even with a batch at its top', async () => {
    // r-old started long ago and sent a batch now; r-new started just now.
    const { planner } = fake({
      batches: [
        ['r-old', NOW - 500 * HOUR],
        ['r-old', NOW],
        ['r-new', NOW - 1000],
        ['r-mid', NOW - 100 * HOUR],
      ],
    });
    const page = await planner.newestPage('edge', 2, 0, NOW);
    expect(page.rows).toEqual([
      { recording_id: 'r-new', started_at: String(NOW - 1000) },
      { recording_id: 'r-mid', started_at: String(NOW - 100 * HOUR) },
      { recording_id: 'r-old', started_at: String(NOW - 500 * HOUR) },
    ]);
  });

  it('gives the page the metadata of every recording on it, also when a dropped one shifts the page', async () => {
    const batches: [string, number][] = [
      ['r-old', NOW - 500 * HOUR],
      ['r-old', NOW],
    ];
    const metadata: [string, string, string, number][] = [['r-old', 'plan', 'old', 1]];
    for (let i = 0; i < 6; i++) {
      batches.push([id(i), NOW - (i + 1) * 1000]);
      metadata.push([id(i), 'plan', `p${i}`, 1]);
    }
    const { planner, expected } = fake({ batches, metadata });
    for (const [limit, offset] of [
      [3, 0],
      [2, 2],
    ]) {
      const page = await planner.newestPage(`shift-${offset}`, limit, offset, NOW);
      expect(page.rows).toEqual(expected([], limit, offset));
      const onPage = page.rows.slice(0, limit).map((r) => r.recording_id);
      expect(page.details.metadata.map((m) => m.recording_id).sort()).toEqual([...onPage].sort());
      expect(page.details.summaries.map((m) => m.recording_id)).toEqual(onPage);
    }
  });

  it('drops such a recording from filtered and deep pages too, wherever it ranks in the window', async () => {
    const batches: [string, number][] = [];
    const metadata: [string, string, string, number][] = [];
    for (let i = 0; i < 700; i++) {
      // Three batches 5 s apart, one recording per second: windows cut through recordings at their edge.
      for (let b = 0; b < 3; b++) batches.push([id(i), NOW - i * 1000 + b * 5000]);
      metadata.push([id(i), 'plan', i % 2 ? 'pro' : 'free', 1]);
    }
    batches.push(['r-old', NOW - 900 * HOUR], ['r-old', NOW + 1], ['r-old2', NOW - 800 * HOUR], ['r-old2', NOW - 650_500]);
    metadata.push(['r-old', 'plan', 'pro', 1], ['r-old2', 'plan', 'pro', 1]);
    const { planner, expected } = fake({ batches, metadata });
    const pro = [{ key: 'plan', value: 'pro' }];
    expect((await planner.filteredPage('edge-f', pro, 5, 0, NOW)).rows).toEqual(expected(pro, 5, 0));
    expect((await planner.filteredPage('edge-f', pro, 20, 300, NOW)).rows).toEqual(expected(pro, 20, 300));
    for (const offset of [0, 40, 640, VERIFY_MAX + 100])
      expect((await planner.newestPage('edge-deep', 10, offset, NOW)).rows).toEqual(expected([], 10, offset));
    expect((await planner.newestPage('edge-deep', 10, 690, NOW)).rows.map((r) => r.recording_id)).toContain('r-old2');
  });

  it('jumps a gap to older data, and stops when nothing older is left', async () => {
    const { planner, queries } = fake({
      batches: [
        ['a', NOW - 10_000 * HOUR],
        ['b', NOW - 10_001 * HOUR],
      ],
    });
    const page = await planner.newestPage('gap', 50, 0, NOW);
    expect(page.rows.map((r) => r.recording_id)).toEqual(['a', 'b']);
    expect(queries.length).toBeLessThan(20);
    expect((await fake({ batches: [] }).planner.newestPage('empty', 50, 0, NOW)).rows).toEqual([]);
  });

  it('reads a listing smaller than a page in one window once it has seen it whole', async () => {
    const batches: [string, number][] = [];
    for (let i = 0; i < 50; i++) batches.push([id(i), NOW - i * 120_000]);
    const { planner, queries, expected } = fake({ batches });
    const windows = () => queries.filter((q) => q.includes('sum(event_count)') && q.includes('OFFSET')).length;
    expect((await planner.newestPage('small', 50, 0, NOW)).rows).toEqual(expected([], 50, 0));
    expect(windows()).toBeGreaterThan(1); // a ten-minute first window, then a wider one
    const before = windows();
    expect((await planner.newestPage('small', 50, 0, NOW + 60_000)).rows).toEqual(expected([], 50, 0));
    expect(windows() - before).toBe(1);
  });

  describe("a listing read again: the last top's checks beside the window", () => {
    const kind = (text: string) =>
      text.includes('sum(event_count)') && text.includes('OFFSET')
        ? 'window'
        : text.startsWith('SELECT DISTINCT recording_id FROM (SELECT recording_id, seq FROM recordings')
          ? 'edge'
          : text.includes('argMax(value, seq) AS value')
            ? 'metadata'
            : 'other';
    /** A planner over a model that can be swapped, answering each query a turn later, and what it was asked in order (`done window` when the window answered). */
    const swappable = (model: Model) => {
      let current = fake(model).ch;
      const log: string[] = [];
      const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
      const ch = {
        rows: async (q: Sql) => (log.push(kind(q.text)), await turn(), current.rows(q)),
        rowsBeforeLimit: async (q: Sql) => {
          log.push(kind(q.text));
          await turn();
          const answer = await current.rowsBeforeLimit(q);
          log.push(`done ${kind(q.text)}`);
          return answer;
        },
      } as unknown as ClickHouse;
      return { planner: new ListingPlanner(ch), log, swap: (next: Model) => (current = fake(next).ch), expected: (m: Model) => fake(m).expected };
    };
    const pro = [{ key: 'plan', value: 'pro' }];
    const model = (n: number, extra: Partial<Model> = {}): Model => {
      const batches: [string, number][] = [];
      const metadata: [string, string, string, number][] = [];
      for (let i = 0; i < n; i++) {
        batches.push([id(i), NOW - i * 1000]);
        metadata.push([id(i), 'plan', i % 2 ? 'pro' : 'free', 1]);
      }
      return { batches: [...batches, ...(extra.batches ?? [])], metadata: [...metadata, ...(extra.metadata ?? [])] };
    };

    it.each([
      ['unfiltered', []],
      ['filtered', pro],
    ])('%s: the second read asks every check with its window, none after it', async (_what, filters) => {
      const m = model(200);
      const { planner, log, expected } = swappable(m);
      // The window plans themselves (page() would take the narrow plan for so few recordings).
      const read = () => (filters.length ? planner.filteredPage('again', filters, 10, 0, NOW) : planner.newestPage('again', 10, 0, NOW));
      expect((await read()).rows).toEqual(expected(m)(filters, 10, 0));
      log.length = 0;
      const page = await read();
      expect(page.rows).toEqual(expected(m)(filters, 10, 0));
      expect(page.details.metadata.map((r) => r.recording_id).sort()).toEqual(
        page.rows
          .slice(0, 10)
          .map((r) => r.recording_id)
          .sort(),
      );
      const answered = log.indexOf('done window');
      expect(log.slice(0, answered).sort()).toEqual(['edge', 'metadata', 'window']);
      expect(log.slice(answered + 1)).toEqual([]);
    });

    it('stops guessing while the top changes from one read to the next, and starts again once it stays', async () => {
      const base = model(100);
      const { planner, log, swap, expected } = swappable(base);
      const read = () => planner.newestPage('churn', 10, 0, NOW);
      const guessed = async (m: Model) => {
        swap(m);
        log.length = 0;
        expect((await read()).rows).toEqual(expected(m)([], 10, 0));
        return log.slice(0, log.indexOf('done window')).includes('edge');
      };
      // Each model puts a dozen new recordings above everything before it.
      const newer = (k: number): Model => {
        const batches: [string, number][] = [...base.batches];
        for (let j = 1; j <= k; j++) for (let i = 0; i < 12; i++) batches.push([`n${j}-${String(i).padStart(2, '0')}`, NOW + j * HOUR + i * 1000]);
        return { batches };
      };
      expect(await guessed(base)).toBe(false); // nothing remembered yet
      expect(await guessed(base)).toBe(true);
      expect(await guessed(newer(1))).toBe(true); // guessed, and missed entirely
      expect(await guessed(newer(2))).toBe(false);
      expect(await guessed(newer(2))).toBe(false); // this read finds the top unchanged...
      expect(await guessed(newer(2))).toBe(true); // ...so the next one guesses again
    });

    it('a guess that missed costs reads, never a wrong page: new recordings, one now older than the window, a changed value', async () => {
      const first = model(200);
      const { planner, log, swap, expected } = swappable(first);
      const read = () => planner.filteredPage('missed', pro, 10, 0, NOW);
      expect((await read()).rows).toEqual(expected(first)(pro, 10, 0));
      // Two new pro recordings on top; r0001 (pro, on the last page) got a batch from long ago; r0003 is free now.
      const next = model(200, {
        batches: [
          ['n1', NOW + 1000],
          ['n2', NOW + 2000],
          [id(1), NOW - 900 * HOUR],
        ],
        metadata: [
          ['n1', 'plan', 'pro', 1],
          ['n2', 'plan', 'pro', 1],
          [id(3), 'plan', 'free', 2],
        ],
      });
      swap(next);
      log.length = 0;
      const page = await read();
      expect(page.rows).toEqual(expected(next)(pro, 10, 0));
      expect(page.rows.map((r) => r.recording_id)).toEqual(expect.arrayContaining(['n1', 'n2']));
      expect(page.rows.map((r) => r.recording_id)).not.toContain(id(3));
      expect(page.details.metadata.filter((r) => r.key === 'plan').every((r) => r.value === 'pro')).toBe(true);
      // The new ones are checked after the window, beside what the guess already asked.
      expect(log.slice(log.indexOf('done window') + 1)).toEqual(expect.arrayContaining(['edge', 'metadata']));
    });
  });

  it('ignores deleted recordings', async () => {
    const { planner } = fake({
      batches: [
        ['a', NOW - 1],
        ['gone', NOW - 2],
        ['b', NOW - 3],
      ],
      deleted: ['gone'],
    });
    expect((await planner.newestPage('del', 50, 0, NOW)).rows.map((r) => r.recording_id)).toEqual(['a', 'b']);
  });
});

describe('ListingPlanner.page', () => {
  const query = { filters: [{ key: 'plan', value: 'pro' }], limit: 5, offset: 0 };
  /** A ClickHouse whose filter counts say `n` rows (0: no match) and nothing else, and how often the counts were read. */
  const counting = (n: number) => {
    const seen: string[] = [];
    const ch = {
      rows: async (q: Sql) => (seen.push(q.text), q.text.startsWith('SELECT key, count() AS n') && n ? [{ key: 'plan', n: String(n) }] : []),
    } as unknown as ClickHouse;
    return { ch, counted: () => seen.filter((q) => q.startsWith('SELECT key, count() AS n')).length };
  };

  it.each([
    ["remembers the filters' counts in the planner that read them", 3, 1],
    ['never remembers that a filter matches nothing (a write may make it match)', 0, 2],
  ])('%s', async (_what, n, reads) => {
    const { ch, counted } = counting(n);
    const planner = new ListingPlanner(ch);
    for (let i = 0; i < 2; i++) expect(await planner.page('t', query)).toEqual({ rows: [], details: { summaries: [], metadata: [] } });
    expect(counted()).toBe(reads);
    await new ListingPlanner(ch).page('t', query); // another planner, its own memory
    expect(counted()).toBe(reads + 1);
  });
});
