// ClickHouse reads for replays (SQL in replay-groups.sql.ts): the recordings of a group, the group's
// merged metadata and the listing of groups by a key. Unreachable ClickHouse becomes StoreUnavailable.
import { Injectable } from '@nestjs/common';
import { ClickHouse } from '../infrastructure/clickhouse/clickhouse-client';
import type { MetadataFilter } from './metadata-filter';
import { bySelectivity } from './metadata-filter.counts';
import { fromReadModel } from './read-model-errors.util';
import { ReplayGroupsSql } from './replay-groups.sql';

export interface ReplayGroupRow {
  value: string;
  recordings: number;
  startedAt: number;
  endedAt: number;
}

export interface ReplayGroup {
  recordingIds: string[];
  /** The filters, most selective first (for further reads of the same group). */
  filters: MetadataFilter[];
}

@Injectable()
export class ReplayGroupsRepository {
  constructor(private readonly ch: ClickHouse) {}

  /** The visible recordings whose latest metadata matches every filter (AND). */
  async group(tenantId: string, filters: readonly MetadataFilter[]): Promise<ReplayGroup> {
    const ordered = await fromReadModel(bySelectivity(this.ch, tenantId, filters));
    if (!ordered) return { recordingIds: [], filters: [...filters] };
    const rows = await fromReadModel(this.ch.rows<{ recording_id: string }>(ReplayGroupsSql.members(tenantId, ordered)));
    return { recordingIds: rows.map((r) => r.recording_id), filters: ordered };
  }

  async mergedMetadata(tenantId: string, filters: readonly MetadataFilter[]): Promise<Record<string, string>> {
    const rows = await fromReadModel(this.ch.rows<{ key: string; value: string }>(ReplayGroupsSql.mergedMetadata(tenantId, filters)));
    return Object.fromEntries(rows.map((r) => [r.key, r.value])); // own data properties, even for "__proto__"
  }

  /** One page of groups of a key, most recently active first; `hasMore` when another page follows. */
  async listGroups(tenantId: string, groupingProp: string, limit: number, offset: number): Promise<{ rows: ReplayGroupRow[]; hasMore: boolean }> {
    const rows = await fromReadModel(
      this.ch.rows<{ value: string; recordings: string; started_at: string; ended_at: string }>(
        ReplayGroupsSql.listGroups(tenantId, groupingProp, limit, offset),
      ),
    );
    return {
      rows: rows
        .slice(0, limit)
        .map((r) => ({ value: r.value, recordings: Number(r.recordings), startedAt: Number(r.started_at), endedAt: Number(r.ended_at) })),
      hasMore: rows.length > limit,
    };
  }
}
