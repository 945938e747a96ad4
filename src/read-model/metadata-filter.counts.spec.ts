import type { ClickHouse } from '../infrastructure/clickhouse/clickhouse-client';
import type { Sql } from '../infrastructure/clickhouse/sql';
import { bySelectivity } from './metadata-filter.counts';

const fake = (counts: Record<string, number>, seen: string[] = []) =>
  ({ rows: async (q: Sql) => (seen.push(q.text), Object.entries(counts).map(([key, n]) => ({ key, n: String(n) }))) }) as unknown as ClickHouse;

describe('bySelectivity', () => {
  const filters = [
    { key: 'env', value: 'prod' },
    { key: 'sessionId', value: "s'1" },
  ];

  it('puts the filter with the fewest candidate rows first', async () => {
    const seen: string[] = [];
    expect(await bySelectivity(fake({ env: 90_000, sessionId: 3 }, seen), 't', filters)).toEqual([filters[1], filters[0]]);
    expect(seen[0]).toContain("(key = 'env' AND value = 'prod') OR (key = 'sessionId' AND value = 's\\'1')");
  });

  it('says null when a filter matches no row, and skips the query for one filter', async () => {
    expect(await bySelectivity(fake({ env: 5 }), 't', filters)).toBeNull();
    const seen: string[] = [];
    expect(await bySelectivity(fake({}, seen), 't', [filters[0]])).toEqual([filters[0]]);
    expect(seen).toEqual([]);
  });
});
