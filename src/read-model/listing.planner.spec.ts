import type { ClickHouse } from '../infrastructure/clickhouse/clickhouse-client';
import type { Sql } from '../infrastructure/clickhouse/sql';
import type { MetadataFilter } from './metadata-filter';
import { PageRow, ranksAfter } from './listing-page.util';
import { narrowPage } from './listing-narrow.plan';
import { ListingPlanner, VERIFY_MAX } from './listing.planner';

// An in-memory read model answering the listing's queries (TimelineSql, RecordingsSql.metadata,
// .summaries and .windowSummaries) by their shape: batches [recording, min_ts], metadata writes
// [recording, key, value, seq] (the highest seq wins), deleted recordings hidden. Checked against a
// brute-force listing.
interface Model {
  batches: [string, number][];
  metadata?: [string, string, string, number][];
  deleted?: string[];
}

const num = (text: string, re: RegExp) => Number(re.exec(text)![1]);
const strings = (text: string) => [...text.matchAll(/'((?:[^'\\]|\\.)*)'/g)].map((m) => m[1]);
const idList = (text: string, re: RegExp) => {
  const m = re.exec(text);
  return m ? strings(m[1]) : undefined;
};

function fake(model: Model) {
  const queries: string[] = [];
  const deleted = new Set(model.deleted ?? []);
  const visible = model.batches.filter(([r]) => !deleted.has(r));
  const starts = new Map<string, number>();
  for (const [r, ts] of visible) starts.set(r, Math.min(ts, starts.get(r) ?? Infinity));
  const latest = new Map<string, Map<string, [string, number]>>();
  for (const [r, k, v, seq] of model.metadata ?? []) {
    if (deleted.has(r)) continue;
    const m = latest.get(r) ?? new Map<string, [string, number]>();
    if ((m.get(k)?.[1] ?? -1) < seq) m.set(k, [v, seq]);
    latest.set(r, m);
  }
  const ranges = (text: string) => [...text.matchAll(/key = '([^']*)' AND value = '([^']*)'/g)].map((m) => ({ key: m[1], value: m[2] }));
  const inRanges = (r: string, fs: { key: string; value: string }[]) =>
    fs.every((f) => (model.metadata ?? []).some(([x, k, v]) => x === r && k === f.key && v === f.value));
  const window = (since: number, exclude: string[] = []) => {
    const first = new Map<string, number>();
    for (const [r, ts] of visible) if (ts >= since && !exclude.includes(r)) first.set(r, Math.min(ts, first.get(r) ?? Infinity));
    return [...first].map(([recording_id, ts]) => ({ recording_id, started_at: String(ts) })).sort((a, b) => (ranksAfter(a, b) ? 1 : -1));
  };
  const answer = (text: string): unknown[] => {
    queries.push(text);
    if (text.startsWith('SELECT count() AS n')) {
      const since = num(text, /min_ts < \(?(-?\d+)/);
      const older = visible.filter(([, ts]) => ts < since);
      return [{ n: String(older.length), newest: String(Math.max(0, ...older.map(([, ts]) => ts))) }];
    }
    if (text.includes('argMax(value, seq) AS value')) {
      const ids = idList(text, /recording_id IN \(([^)]*)\)/)!;
      return ids.flatMap((r) => [...(latest.get(r) ?? [])].map(([key, [value]]) => ({ recording_id: r, key, value })));
    }
    if (text.includes('sum(event_count)') && text.includes('OFFSET')) {
      // RecordingsSql.windowSummaries: a page of the window (of the filters' candidates) with (here: only) started_at as summary
      const m = /LIMIT (\d+) OFFSET (\d+)$/.exec(text)!;
      const fs = ranges(text);
      const all = window(num(text, /min_ts >= \(?(-?\d+)/), idList(text, /NOT IN \(([^)]*)\)/)).filter((r) => inRanges(r.recording_id, fs));
      return [all.slice(Number(m[2]), Number(m[2]) + Number(m[1])), all.length];
    }
    if (text.includes('sum(event_count)')) {
      const ids = idList(text, /recording_id IN \(([^)]*)\)/)!;
      return ids.filter((r) => starts.has(r)).map((r) => ({ recording_id: r, started_at: String(starts.get(r)) }));
    }
    if (text.startsWith('SELECT DISTINCT recording_id FROM (SELECT recording_id, seq FROM recordings')) {
      const since = num(text, /started_at < \(?(-?\d+)/);
      return idList(text, /recording_id IN \(([^)]*)\)/)!
        .filter((r) => starts.has(r) && starts.get(r)! < since)
        .map((recording_id) => ({ recording_id }));
    }
    if (text.startsWith('SELECT recording_id, max(min_ts) AS latest_ts')) {
      const since = num(text, /started_at < \(?(-?\d+)/);
      const latestIn = (r: string) => Math.max(...model.batches.filter(([x, ts]) => x === r && ts >= since).map(([, ts]) => ts));
      const rough = new Set(model.batches.filter(([r, ts]) => ts >= since && model.batches.some(([x, t]) => x === r && t < since)).map(([r]) => r));
      return [...rough].map((recording_id) => ({ recording_id, latest_ts: String(latestIn(recording_id)) }));
    }
    if (text.includes('min(started_at) AS first_ts')) {
      const fs = ranges(text);
      const cap = num(text, /LIMIT (\d+)$/);
      return [...starts]
        .filter(([r]) => inRanges(r, fs))
        .map(([recording_id, ts]) => ({ recording_id, started_at: String(ts) }))
        .sort((a, b) => (ranksAfter(a, b) ? 1 : -1))
        .slice(0, cap)
        .map((r) => ({ recording_id: r.recording_id, first_ts: r.started_at }));
    }
    const since = num(text, /min_ts >= \(?(-?\d+)/);
    const m = /LIMIT (\d+) OFFSET (\d+)$/.exec(text);
    if (!m) throw new Error(`unexpected query ${text}`);
    const all = window(since, idList(text, /NOT IN \(([^)]*)\)/));
    return [all.slice(Number(m[2]), Number(m[2]) + Number(m[1])), all.length];
  };
  const ch = {
    rows: async (q: Sql) => answer(q.text),
    rowsBeforeLimit: async (q: Sql) => {
      const [rows, beforeLimit] = answer(q.text) as [PageRow[], number];
      return { rows, beforeLimit };
    },
  } as unknown as ClickHouse;
  // The listing by definition: visible recordings, newest first, matching the latest value of every filter.
  const expected = (filters: MetadataFilter[], limit: number, offset: number) =>
    [...starts]
      .filter(([r]) => filters.every((f) => latest.get(r)?.get(f.key)?.[0] === f.value))
      .map(([recording_id, ts]) => ({ recording_id, started_at: String(ts) }))
      .sort((a, b) => (ranksAfter(a, b) ? 1 : -1))
      .slice(offset, offset + limit + 1);
  return { ch, planner: new ListingPlanner(ch), queries, expected };
}

const HOUR = 3_600_000;
const NOW = 20_000 * HOUR;
const id = (i: number) => `r${String(i).padStart(4, '0')}`;

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

describe('ranksAfter', () => {
  it('orders by start descending, then id descending bytewise', () => {
    expect(ranksAfter({ recording_id: 'b', started_at: '1' }, { recording_id: 'a', started_at: '2' })).toBe(true);
    expect(ranksAfter({ recording_id: 'a', started_at: '2' }, { recording_id: 'b', started_at: '2' })).toBe(true);
    expect(ranksAfter({ recording_id: 'b', started_at: '2' }, { recording_id: 'a', started_at: '2' })).toBe(false);
    expect(ranksAfter({ recording_id: '\u{1F600}', started_at: '2' }, { recording_id: '\uFFFF', started_at: '2' })).toBe(false);
  });
});
