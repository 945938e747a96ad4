// SQL for metadata filters: the ids of a tenant's recordings whose latest visible value of every
// filtered key equals the filter's value (AND). Candidates come from key/value ranges of
// recording_metadata_by_key (its sort key), each filter narrowing the previous one's candidates, so
// put the most selective filter first (metadata-filter.counts.ts); then the latest value per key
// (argMax by seq) decides, so a value overwritten later no longer matches.
import { join, list, Sql, sql } from '../infrastructure/clickhouse/sql';
import type { MetadataFilter } from './metadata-filter';
import { deletionJoin } from './visibility.sql';

/**
 * Recordings with a row (any, not only the latest, deleted or not) in every filter's key/value range:
 * a superset of the matches, read from key/value ranges only.
 */
export function candidateRecordingsSql(tenantId: string, filters: readonly MetadataFilter[]): Sql {
  if (filters.length === 0) throw new TypeError('candidateRecordingsSql needs at least one filter');
  let candidates: Sql | undefined;
  for (const f of filters) {
    const narrower = candidates ? sql` AND recording_id IN (${candidates})` : sql``;
    candidates = sql`SELECT recording_id FROM recording_metadata_by_key WHERE tenant_id = ${tenantId} AND key = ${f.key} AND value = ${f.value}${narrower}`;
  }
  return candidates!;
}

export function matchingRecordingsSql(tenantId: string, filters: readonly MetadataFilter[]): Sql {
  if (filters.length === 0) throw new TypeError('matchingRecordingsSql needs at least one filter');
  const latest = filters.map((f) => sql`countIf(key = ${f.key}) > 0 AND argMaxIf(value, seq, key = ${f.key}) = ${f.value}`);
  return sql`SELECT recording_id FROM recording_metadata_by_key ${deletionJoin(tenantId)}
    WHERE tenant_id = ${tenantId} AND key IN ${list(filters.map((f) => f.key))} AND recording_id IN (${candidateRecordingsSql(tenantId, filters)}) AND seq > deleted_seq
    GROUP BY recording_id HAVING ${join(latest, ' AND ')}`;
}

/**
 * The same rule as matchingRecordingsSql, applied to metadata already read (the latest visible value
 * of every key of a recording, RecordingsSql.metadata): true if every filter's key has its value.
 */
export function matchesLatest(metadata: Record<string, string> | undefined, filters: readonly MetadataFilter[]): boolean {
  return filters.every((f) => metadata !== undefined && Object.hasOwn(metadata, f.key) && metadata[f.key] === f.value);
}
