import type { ClickHouse } from '../infrastructure/clickhouse/clickhouse-client';
import type { Sql } from '../infrastructure/clickhouse/sql';
import { timelinePage } from './recordings-timeline';

// A fake recording_timeline: batches [recording, min_ts]; answers the three TimelineSql queries.
function fake(batches: [string, number][], deleted: string[] = []) {
  const queries: string[] = [];
  const visible = batches.filter(([r]) => !deleted.includes(r));
  const ch = {
    rows: async (q: Sql) => {
      const text = q.text;
      queries.push(text);
      const m = /min_ts (?:>=|<) \(?(-?\d+)/.exec(text);
      if (!m) throw new Error(text);
      const since = Number(m[1]);
      if (text.startsWith('SELECT count()')) {
        const older = visible.filter(([, ts]) => ts < since);
        return [{ n: String(older.length), newest: String(Math.max(0, ...older.map(([, ts]) => ts))) }];
      }
      const starts = new Map<string, number>();
      for (const [r, ts] of visible) starts.set(r, Math.min(ts, starts.get(r) ?? Infinity));
      const inWindow = new Set(visible.filter(([, ts]) => ts >= since).map(([r]) => r));
      if (text.startsWith('SELECT DISTINCT')) return [...inWindow].filter((r) => starts.get(r)! < since).map((recording_id) => ({ recording_id }));
      const cap = Number(/LIMIT (\d+)$/.exec(text)![1]);
      const first = (r: string) => Math.min(...visible.filter(([x, ts]) => x === r && ts >= since).map(([, ts]) => ts));
      return [...inWindow]
        .map((r) => ({ recording_id: r, started_at: String(first(r)) }))
        .sort((a, b) => Number(b.started_at) - Number(a.started_at) || (a.recording_id < b.recording_id ? 1 : -1))
        .slice(0, cap);
    },
  } as unknown as ClickHouse;
  return { ch, queries };
}

const HOUR = 3_600_000;
const NOW = 20_000 * HOUR;

describe('timelinePage', () => {
  it('widens the window until the page and one more are in it, ordered like the full listing', async () => {
    const batches: [string, number][] = [];
    for (let i = 0; i < 40; i++) batches.push([`r${String(i).padStart(2, '0')}`, NOW - i * HOUR], [`r${String(i).padStart(2, '0')}`, NOW - i * HOUR + 5]);
    const { ch } = fake(batches);
    const page = await timelinePage(ch, 'widen', 5, 10, NOW);
    expect(page.rows.map((r) => r.recording_id)).toEqual(['r10', 'r11', 'r12', 'r13', 'r14', 'r15']);
    expect(page.since).toBeLessThanOrEqual(NOW - 15 * HOUR);
  });

  it('drops a recording that started before the window, even with a batch inside it', async () => {
    // r-old started long ago and sent a batch now; r-new started just now.
    const { ch } = fake([['r-old', NOW - 500 * HOUR], ['r-old', NOW], ['r-new', NOW - 1000], ['r-mid', NOW - 100 * HOUR]]);
    const page = await timelinePage(ch, 'edge', 2, 0, NOW);
    expect(page.rows).toEqual([
      { recording_id: 'r-new', started_at: String(NOW - 1000) },
      { recording_id: 'r-mid', started_at: String(NOW - 100 * HOUR) },
      { recording_id: 'r-old', started_at: String(NOW - 500 * HOUR) },
    ]);
  });

  it('jumps a gap to older data, and stops when nothing older is left', async () => {
    const { ch, queries } = fake([['a', NOW - 10_000 * HOUR], ['b', NOW - 10_001 * HOUR]]);
    const page = await timelinePage(ch, 'gap', 50, 0, NOW);
    expect(page.rows.map((r) => r.recording_id)).toEqual(['a', 'b']);
    expect(queries.length).toBeLessThan(12);
    const none = await timelinePage(fake([]).ch, 'empty', 50, 0, NOW);
    expect(none.rows).toEqual([]);
  });

  it('ignores deleted recordings', async () => {
    const { ch } = fake([['a', NOW - 1], ['gone', NOW - 2], ['b', NOW - 3]], ['gone']);
    expect((await timelinePage(ch, 'del', 50, 0, NOW)).rows.map((r) => r.recording_id)).toEqual(['a', 'b']);
  });
});
