// ClickHouse reads for GET /statistics (SQL in statistics.sql.ts): the filters in selectivity order,
// the window's recording ids, and the bucket and breakdown rows, as ClickHouse answers them (64-bit
// integers as strings). Unreachable ClickHouse becomes StoreUnavailable.
import { Injectable } from '@nestjs/common';
import { ClickHouse } from '../infrastructure/clickhouse/clickhouse-client';
import type { MetadataFilter } from './metadata-filter';
import { bySelectivity } from './metadata-filter.counts';
import { fromReadModel } from './read-model-errors.util';
import { Bucketing, StatisticsSql, WindowScope } from './statistics.sql';

type Num = string | number;
export type BucketRow = {
  t: Num;
  recordings: Num;
  events: Num;
  bytes: Num;
  page_views: Num;
  duration_total: Num;
  duration_quantiles: Num[];
  types: [Num[], Num[]];
};
export type BreakdownRow = { has_value: Num; value: string; recordings: Num; events: Num };
export type ActivityBucketRow = { t: Num; errors: Num; with_errors: Num; rage_clicks: Num; with_rage: Num };
export type TopPageRow = { path: string; recordings: Num };
export type ViewportRow = { width: Num; height: Num; recordings: Num };

@Injectable()
export class StatisticsRepository {
  constructor(private readonly ch: ClickHouse) {}

  /** The filters, most selective first; null when one matches nothing. */
  bySelectivity(tenantId: string, filters: readonly MetadataFilter[]): Promise<MetadataFilter[] | null> {
    return fromReadModel(bySelectivity(this.ch, tenantId, filters));
  }

  /** The window's recording ids, up to `limit`. */
  async windowIds(scope: WindowScope, limit: number): Promise<string[]> {
    const rows = await fromReadModel(this.ch.rows<{ recording_id: string }>(StatisticsSql.windowIds(scope, limit)));
    return rows.map((r) => r.recording_id);
  }

  /** One row per bucket, and the totals row (WITH TOTALS). */
  buckets(scope: WindowScope, bucketing: Bucketing): Promise<{ data: BucketRow[]; totals?: BucketRow }> {
    return fromReadModel(this.ch.json<BucketRow>(StatisticsSql.buckets(scope, bucketing)));
  }

  /** Errors and recordings with errors or rage clicks per bucket, and the totals row (WITH TOTALS). */
  activityBuckets(scope: WindowScope, bucketing: Bucketing): Promise<{ data: ActivityBucketRow[]; totals?: ActivityBucketRow }> {
    return fromReadModel(this.ch.json<ActivityBucketRow>(StatisticsSql.activityBuckets(scope, bucketing)));
  }

  /** Paths by recordings that viewed them, limit + 1 rows. */
  topPages(scope: WindowScope, limit: number): Promise<TopPageRow[]> {
    return fromReadModel(this.ch.rows<TopPageRow>(StatisticsSql.topPages(scope, limit)));
  }

  /** Viewport sizes by recordings, limit + 1 rows. */
  viewports(scope: WindowScope, limit: number): Promise<ViewportRow[]> {
    return fromReadModel(this.ch.rows<ViewportRow>(StatisticsSql.viewports(scope, limit)));
  }

  /** Recordings and events per latest value of `key`, limit + 1 rows. */
  breakdown(scope: WindowScope, key: string, limit: number): Promise<BreakdownRow[]> {
    return fromReadModel(this.ch.rows<BreakdownRow>(StatisticsSql.breakdown(scope, key, limit)));
  }
}
