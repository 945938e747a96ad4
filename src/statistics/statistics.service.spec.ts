import type { ClickHouse } from '../infrastructure/clickhouse/clickhouse-client';
import type { Sql } from '../infrastructure/clickhouse/sql';
import { StatisticsRepository } from '../read-model/statistics.repository';
import { parseStatisticsQuery } from './statistics.params';
import { BREAKDOWN_LIMIT, LITERAL_IDS_LIMIT, StatisticsService, TOP_VIEWPORTS } from './statistics.service';

const HOUR = 3_600_000;
const params = (extra: Record<string, unknown> = {}) => parseStatisticsQuery({ from: String(10 * HOUR), to: String(13 * HOUR), interval: 'hour', ...extra });

function fake(ids: number, answer: (q: string) => unknown = () => []) {
  const seen: string[] = [];
  const ch = {
    rows: async (q: Sql) => {
      seen.push(q.text);
      if (/LIMIT \d+$/.test(q.text) && q.text.startsWith('SELECT recording_id FROM ('))
        return Array.from({ length: ids }, (_, i) => ({ recording_id: `r${i}` }));
      return answer(q.text);
    },
    json: async (q: Sql) => {
      seen.push(q.text);
      return answer(q.text) ?? { data: [] };
    },
  } as unknown as ClickHouse;
  return { service: new StatisticsService(new StatisticsRepository(ch)), seen };
}

describe('StatisticsService', () => {
  it('answers zeros with every bucket and reads nothing more for an empty window', async () => {
    const { service, seen } = fake(0, () => ({ data: [] }));
    const r = await service.statistics('t', params({ groupBy: 'plan' }));
    expect(seen).toHaveLength(1);
    expect(r.totals).toEqual({ recordings: 0, events: 0, bytes: 0, pageViews: 0, duration: { total: 0, avg: 0, p50: 0, p90: 0, p99: 0 } });
    expect(r.series).toEqual([0, 1, 2].map((i) => ({ t: (10 + i) * HOUR, recordings: 0, events: 0 })));
    expect(r.breakdown).toEqual({ key: 'plan', values: [], truncated: false });
    expect(r.viewports).toEqual([]);
    expect(r.viewportsTruncated).toBe(false);
  });

  it('passes a small window as a literal id list and shapes the rows', async () => {
    const { service, seen } = fake(2, (q) => {
      const row = {
        recordings: '2',
        events: '30',
        bytes: '900',
        page_views: '2',
        duration_total: '301',
        duration_quantiles: ['100', '201', '201'],
        types: [
          [2, 3],
          ['2', '28'],
        ],
      };
      if (q.includes('WITH TOTALS')) return { data: [{ t: String(11 * HOUR), ...row }], totals: { t: '0', ...row } };
      if (q.includes('AS viewport'))
        return Array.from({ length: TOP_VIEWPORTS + 1 }, (_, i) => ({ width: String(1000 + i), height: '700', recordings: String(20 - i) }));
      return Array.from({ length: BREAKDOWN_LIMIT + 1 }, (_, i) => ({ has_value: i ? 1 : 0, value: i ? `v${i}` : '', recordings: '1', events: '1' }));
    });
    const r = await service.statistics('t', params({ groupBy: 'plan' }));
    expect(seen.slice(1).every((q) => q.includes("recording_id IN ('r0', 'r1')"))).toBe(true);
    expect(r.totals).toEqual({ recordings: 2, events: 30, bytes: 900, pageViews: 2, duration: { total: 301, avg: 151, p50: 100, p90: 201, p99: 201 } });
    expect(r.series.map((b) => b.recordings)).toEqual([0, 2, 0]);
    expect(r.eventTypes).toEqual({ '2': 2, '3': 28 });
    expect(r.breakdown!.values).toHaveLength(BREAKDOWN_LIMIT);
    expect(r.breakdown!.values[0]).toEqual({ value: null, recordings: 1, events: 1 });
    expect(r.breakdown!.truncated).toBe(true);
    expect(r.viewports).toHaveLength(TOP_VIEWPORTS);
    expect(r.viewports[0]).toEqual({ width: 1000, height: 700, recordings: 20 });
    expect(r.viewportsTruncated).toBe(true);
  });

  it('keeps a large window as a subquery', async () => {
    const { service, seen } = fake(LITERAL_IDS_LIMIT + 1, (q) => (q.includes('WITH TOTALS') ? { data: [] } : []));
    await service.statistics('t', params());
    expect(seen.slice(1).every((q) => q.includes('recording_id IN (SELECT recording_id FROM (SELECT recording_id, started_at FROM recordings FINAL'))).toBe(
      true,
    );
  });
});
