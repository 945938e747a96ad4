// Reads a GROUP BY … WITH TOTALS query: format JSON carries the totals row next to the data rows
// (JSONEachRow drops it). Uses the ClickHouse adapter's client; the SQL still comes from `sql`.
import type { ClickHouse } from '../infrastructure/clickhouse/clickhouse-client';
import type { Sql } from '../infrastructure/clickhouse/sql';

export async function rowsWithTotals<T>(ch: ClickHouse, q: Sql): Promise<{ data: T[]; totals?: T }> {
  const rs = await ch.client.query({ query: q.text, format: 'JSON' });
  const body = await rs.json<T>();
  return { data: body.data, totals: body.totals };
}
