// Orders metadata filters by selectivity before they are nested (matchingRecordingsSql): one count
// per key/value range of recording_metadata_by_key (an upper bound: older values and deleted
// recordings count too). null: a filter matches nothing, so neither does their AND.
import type { ClickHouse } from '../infrastructure/clickhouse/clickhouse-client';
import { join, sql } from '../infrastructure/clickhouse/sql';
import type { MetadataFilter } from './metadata-filter';

export interface FilterCounts {
  /** Most selective first. */
  filters: MetadataFilter[];
  /** Rows in the smallest key/value range: an upper bound on the recordings that can match. */
  smallest: number;
}

/** The counts, for any number of filters (the listing planner chooses its plan by `smallest`, and remembers them a while). */
export async function filterCounts(ch: ClickHouse, tenantId: string, filters: readonly MetadataFilter[]): Promise<FilterCounts | null> {
  const ranges = filters.map((f) => sql`(key = ${f.key} AND value = ${f.value})`);
  const rows = await ch.rows<{ key: string; n: string }>(
    sql`SELECT key, count() AS n FROM recording_metadata_by_key WHERE tenant_id = ${tenantId} AND (${join(ranges, ' OR ')}) GROUP BY key`,
  );
  const count = new Map(rows.map((r) => [r.key, Number(r.n)]));
  if (filters.some((f) => !count.get(f.key))) return null;
  const sorted = [...filters].sort((a, b) => count.get(a.key)! - count.get(b.key)!);
  return { filters: sorted, smallest: count.get(sorted[0].key)! };
}

/** Only worth its round trip for two filters or more: one filter is returned as is. */
export async function bySelectivity(ch: ClickHouse, tenantId: string, filters: readonly MetadataFilter[]): Promise<MetadataFilter[] | null> {
  if (filters.length < 2) return [...filters];
  return (await filterCounts(ch, tenantId, filters))?.filters ?? null;
}
