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

/** The counts, for any number of filters (the listing chooses its plan by `smallest`). */
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

const PLAN_TTL_MS = 30_000;
const PLAN_KEYS = 10_000;
const plans = new Map<string, { counts: FilterCounts; at: number }>();

/**
 * filterCounts, remembered for PLAN_TTL_MS per tenant and filter set when something can match: the
 * counts only order filters and choose a plan, and every plan answers exactly, so a stale count costs
 * time, never correctness. "Nothing matches" is never remembered (a write may make it match).
 */
export async function cachedFilterCounts(ch: ClickHouse, tenantId: string, filters: readonly MetadataFilter[], now = Date.now()): Promise<FilterCounts | null> {
  const key = `${tenantId}\u0000${JSON.stringify(filters)}`;
  const hit = plans.get(key);
  if (hit && now - hit.at < PLAN_TTL_MS) return hit.counts;
  const counts = await filterCounts(ch, tenantId, filters);
  if (!counts) plans.delete(key);
  else {
    if (plans.size >= PLAN_KEYS && !plans.has(key)) plans.delete(plans.keys().next().value as string);
    plans.set(key, { counts, at: now });
  }
  return counts;
}
