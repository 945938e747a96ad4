// Writes projection rows to ClickHouse: one JSONEachRow insert per call, deletions as one mutation per call.
// `tableName` maps a projection's table to the physical one (a rebuild writes to fresh tables).
import type { ClickHouse } from '../infrastructure/clickhouse/clickhouse-client';
import { ident, join, sql } from '../infrastructure/clickhouse/sql';
import type { Row } from './projection';
import type { DeletedRecording, ProjectionSink } from './projection-ports';

export class ClickHouseProjectionSink implements ProjectionSink {
  constructor(
    private readonly ch: ClickHouse,
    private readonly tableName: (table: string) => string = (t) => t,
  ) {}

  ready(): Promise<boolean> {
    return this.ch.ping();
  }

  insert(table: string, rows: Row[]): Promise<void> {
    return this.ch.insert(this.tableName(table), rows);
  }

  /** A mutation (ALTER TABLE … DELETE works on 18.16 and current servers; it runs in the background). */
  deleteRecordings(table: string, recordings: DeletedRecording[]): Promise<void> {
    const conditions = recordings.map((r) => sql`(tenant_id = ${r.tenantId} AND recording_id = ${r.recordingId} AND seq < ${r.beforeSeq})`);
    return this.ch.command(sql`ALTER TABLE ${ident(this.tableName(table))} DELETE WHERE ${join(conditions, ' OR ')}`);
  }
}
