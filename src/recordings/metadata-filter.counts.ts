// Orders metadata filters by selectivity before they are nested (matchingRecordingsSql): one count
// per key/value range of recording_metadata_by_key (an upper bound: older values and deleted
// recordings count too). Only worth its round trip for two filters or more. null: a filter matches
// nothing, so neither does their AND.
import type { ClickHouse } from '../infrastructure/clickhouse/clickhouse-client';
import { join, sql } from '../infrastructure/clickhouse/sql';
import type { MetadataFilter } from './metadata-filter';

export async function bySelectivity(ch: ClickHouse, tenantId: string, filters: readonly MetadataFilter[]): Promise<MetadataFilter[] | null> {
  if (filters.length < 2) return [...filters];
  const ranges = filters.map((f) => sql`(key = ${f.key} AND value = ${f.value})`);
  const rows = await ch.rows<{ key: string; n: string }>(
    sql`SELECT key, count() AS n FROM recording_metadata_by_key WHERE tenant_id = ${tenantId} AND (${join(ranges, ' OR ')}) GROUP BY key`,
  );
  const count = new Map(rows.map((r) => [r.key, Number(r.n)]));
  if (filters.some((f) => !count.get(f.key))) return null;
  return [...filters].sort((a, b) => (count.get(a.key) ?? 0) - (count.get(b.key) ?? 0));
}
