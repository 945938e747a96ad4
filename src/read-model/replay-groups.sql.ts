// SQL of the replay read model. Membership uses the shared metadata filter (matchingRecordingsSql:
// latest visible value per key, from recording_metadata_by_key); merged metadata and the listing
// apply the same deletion rule as every other read (visibility.sql.ts), so a deleted
// recording leaves its group, its listing entry and the merged metadata as soon as its deletion
// marker is projected, before the ClickHouse mutation has removed its rows.
import { Sql, sql } from '../infrastructure/clickhouse/sql';
import type { MetadataFilter } from './metadata-filter';
import { matchingRecordingsSql } from './metadata-filter.sql';
import { withDeletions } from './visibility.sql';

export const ReplayGroupsSql = {
  /**
   * Ids of the group's recordings, in id order: those matching `filters` (most selective first) that
   * have a visible event batch, as the group listing counts them. Metadata alone (attached before
   * any event arrived) makes no member, so such a group is not found, as it is not listed.
   */
  members(tenantId: string, filters: readonly MetadataFilter[]): Sql {
    const withEvents = sql`SELECT DISTINCT recording_id FROM ${withDeletions(
      tenantId,
      sql`SELECT recording_id, seq FROM recording_batches WHERE tenant_id = ${tenantId} AND recording_id IN (${matchingRecordingsSql(tenantId, filters)})`,
    )} WHERE seq > deleted_seq`;
    return sql`SELECT recording_id FROM (${withEvents}) ORDER BY recording_id`;
  },

  /**
   * Union of the group's visible metadata; per key the value with the highest stream sequence (the
   * most recently written) wins across the group's recordings.
   */
  mergedMetadata(tenantId: string, filters: readonly MetadataFilter[]): Sql {
    return sql`SELECT key, argMax(value, seq) AS value FROM ${withDeletions(
      tenantId,
      sql`SELECT recording_id, key, value, seq FROM recording_metadata
        WHERE tenant_id = ${tenantId} AND recording_id IN (${matchingRecordingsSql(tenantId, filters)})`,
    )} WHERE seq > deleted_seq GROUP BY key ORDER BY key`;
  },

  /**
   * Groups of one key: each recording counts under the latest visible value of the key, once it has
   * a visible event batch. Most recently active first (latest event), ties by value; limit + 1 rows
   * tell whether more follow.
   */
  listGroups(tenantId: string, groupingProp: string, limit: number, offset: number): Sql {
    const withKey = sql`SELECT recording_id FROM recording_metadata_by_key WHERE tenant_id = ${tenantId} AND key = ${groupingProp}`;
    const values = sql`SELECT recording_id, argMax(value, seq) AS value FROM ${withDeletions(
      tenantId,
      sql`SELECT recording_id, value, seq FROM recording_metadata_by_key WHERE tenant_id = ${tenantId} AND key = ${groupingProp}`,
    )} WHERE seq > deleted_seq GROUP BY recording_id`;
    const spans = sql`SELECT recording_id, min(min_ts) AS started_at, max(max_ts) AS ended_at FROM ${withDeletions(
      tenantId,
      sql`SELECT recording_id, seq, min_ts, max_ts FROM recording_batches WHERE tenant_id = ${tenantId} AND recording_id IN (${withKey})`,
    )} WHERE seq > deleted_seq GROUP BY recording_id`;
    return sql`SELECT value, count() AS recordings, min(started_at) AS started_at, max(ended_at) AS ended_at
      FROM (${values}) AS latest ANY INNER JOIN (${spans}) AS spans USING (recording_id)
      GROUP BY value ORDER BY ended_at DESC, value ASC LIMIT ${limit + 1} OFFSET ${offset}`;
  },
};
