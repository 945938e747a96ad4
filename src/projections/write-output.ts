import type { ProjectionOutput } from './projection';
import type { DeletedRecording, ProjectionSink } from './projection-ports';

/** Recordings per deletion statement: keeps a statement far below ClickHouse's max_query_size. */
const DELETIONS_PER_STATEMENT = 200;

/**
 * Writes a projection's output: one insert per table with rows (tables in parallel), then one
 * deletion mutation per table (mutations rewrite data parts: one per batch, not per recording).
 * Returns rows written. On failure some tables may hold the rows already; the retry writes them
 * again, which versioned rows make harmless.
 */
export async function writeOutput(sink: ProjectionSink, out: ProjectionOutput): Promise<number> {
  const tables = Object.entries(out.rows).filter(([, rows]) => rows.length > 0);
  await Promise.all(tables.map(([table, rows]) => sink.insert(table, rows)));
  const byTable = new Map<string, DeletedRecording[]>();
  for (const d of out.deletions) {
    for (const table of d.tables) {
      const list = byTable.get(table) ?? [];
      list.push({ tenantId: d.tenantId, recordingId: d.recordingId, beforeSeq: d.beforeSeq });
      byTable.set(table, list);
    }
  }
  for (const [table, recordings] of byTable) {
    for (let i = 0; i < recordings.length; i += DELETIONS_PER_STATEMENT) await sink.deleteRecordings(table, recordings.slice(i, i + DELETIONS_PER_STATEMENT));
  }
  return tables.reduce((n, [, rows]) => n + rows.length, 0);
}
