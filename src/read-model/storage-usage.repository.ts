// A tenant's stored bytes as the projections count them (the stored-bytes quota, limits/): the bytes
// of its visible event batches, one row per batch id (redelivered batches counted once), below the
// deletion rule, as GET /statistics sums them. Reads the tenant's range of recording_batches.
import { Injectable } from '@nestjs/common';
import { ClickHouse } from '../infrastructure/clickhouse/clickhouse-client';
import { Sql, sql } from '../infrastructure/clickhouse/sql';
import { fromReadModel } from './read-model-errors.util';
import { withDeletions } from './visibility.sql';

export const StorageUsageSql = {
  storedBytes(tenantId: string): Sql {
    const batches = sql`SELECT recording_id, batch_id, bytes, seq FROM recording_batches WHERE tenant_id = ${tenantId}`;
    return sql`SELECT sum(bytes) AS bytes FROM (SELECT bytes FROM ${withDeletions(tenantId, batches)} WHERE seq > deleted_seq LIMIT 1 BY recording_id, batch_id)`;
  },
};

@Injectable()
export class StorageUsageRepository {
  constructor(private readonly ch: ClickHouse) {}

  async storedBytes(tenantId: string): Promise<number> {
    const rows = await fromReadModel(this.ch.rows<{ bytes: string | number }>(StorageUsageSql.storedBytes(tenantId)));
    return Number(rows[0]?.bytes ?? 0);
  }
}
