// ClickHouse reads for replays: which recordings form a group (latest value of a metadata key per
// recording), the group's merged metadata (latest write per key across the group wins: highest
// stream sequence), and the listing of groups by a key. All values go through the sql helper.
import { Injectable } from '@nestjs/common';
import { ClickHouse } from '../infrastructure/clickhouse/clickhouse-client';
import { fromReadModel } from '../recordings/recordings-query.read-model';
import { list, Sql, sql } from '../infrastructure/clickhouse/sql';

import type { MetadataFilter as MetadataMatch } from '../recordings/metadata-filter';

export interface ReplayGroupRow {
  value: string;
  recordings: number;
  startedAt: number;
  endedAt: number;
}

/** Recording ids of a tenant whose latest metadata matches every filter (AND). */
export function matchingRecordingsSql(tenantId: string, filters: MetadataMatch[]): Sql {
  const having = filters.map((f) => sql`argMaxIf(value, seq, key = ${f.key}) = ${f.value} AND countIf(key = ${f.key}) > 0`);
  return sql`SELECT recording_id FROM recording_metadata WHERE tenant_id = ${tenantId} AND key IN ${list(filters.map((f) => f.key))}
    GROUP BY recording_id HAVING ${new Sql(having.map((h) => h.text).join(' AND '))}`;
}

@Injectable()
export class ReplayGroupsRepository {
  constructor(private readonly ch: ClickHouse) {}

  async recordingIds(tenantId: string, filters: MetadataMatch[]): Promise<string[]> {
    const rows = await fromReadModel(
      this.ch.rows<{ recording_id: string }>(
        sql`SELECT recording_id FROM (${matchingRecordingsSql(tenantId, filters)}) ORDER BY recording_id`,
      ),
    );
    return rows.map((r) => r.recording_id);
  }

  async mergedMetadata(tenantId: string, recordingIds: string[]): Promise<Record<string, string>> {
    if (recordingIds.length === 0) return {};
    const rows = await fromReadModel(
      this.ch.rows<{ key: string; value: string }>(
        sql`SELECT key, argMax(value, seq) AS value FROM recording_metadata
            WHERE tenant_id = ${tenantId} AND recording_id IN ${list(recordingIds)} GROUP BY key ORDER BY key`,
      ),
    );
    return Object.fromEntries(rows.map((r) => [r.key, r.value]));
  }

  /** Groups of a metadata key, most recently active first. */
  async listGroups(tenantId: string, groupingProp: string, limit: number, offset: number): Promise<ReplayGroupRow[]> {
    const rows = await fromReadModel(
      this.ch.rows<{ value: string; recordings: string; started_at: string; ended_at: string }>(
        sql`SELECT value, count() AS recordings, min(start) AS started_at, max(end) AS ended_at FROM (
              SELECT recording_id, argMax(value, seq) AS value FROM recording_metadata
              WHERE tenant_id = ${tenantId} AND key = ${groupingProp} GROUP BY recording_id
            ) ANY LEFT JOIN (
              SELECT recording_id, min(min_ts) AS start, max(max_ts) AS end FROM recording_batches
              WHERE tenant_id = ${tenantId} GROUP BY recording_id
            ) USING recording_id
            GROUP BY value ORDER BY ended_at DESC, value ASC LIMIT ${limit} OFFSET ${offset}`,
      ),
    );
    return rows.map((r) => ({ value: r.value, recordings: Number(r.recordings), startedAt: Number(r.started_at), endedAt: Number(r.ended_at) }));
  }
}
