import type { ClickHouse } from '../infrastructure/clickhouse/clickhouse-client';
import type { Sql } from '../infrastructure/clickhouse/sql';
import { ClickHouseProjectionSink } from './clickhouse-projection-sink';

describe('ClickHouseProjectionSink', () => {
  const calls: string[] = [];
  const ch = {
    command: async (q: Sql) => void calls.push(q.text),
    insert: async (table: string, rows: unknown[]) => void calls.push(`insert ${table} ${rows.length}`),
  } as unknown as ClickHouse;

  beforeEach(() => (calls.length = 0));

  it('deletes several recordings in one escaped mutation, below each one’s deletion seq', async () => {
    await new ClickHouseProjectionSink(ch).deleteRecordings('recording_batches', [
      { tenantId: 'a', recordingId: 'r1', beforeSeq: 10 },
      { tenantId: "b'x", recordingId: 'r2', beforeSeq: 12 },
    ]);
    expect(calls).toEqual([
      "ALTER TABLE `recording_batches` DELETE WHERE (tenant_id = 'a' AND recording_id = 'r1' AND seq < 10) OR (tenant_id = 'b\\'x' AND recording_id = 'r2' AND seq < 12)",
    ]);
  });

  it('maps table names (a rebuild writes to fresh tables)', async () => {
    const sink = new ClickHouseProjectionSink(ch, (t) => `${t}_rebuild_1`);
    await sink.insert('recording_minutes', [{ seq: 1 }]);
    await sink.deleteRecordings('recording_minutes', [{ tenantId: 'a', recordingId: 'r', beforeSeq: 2 }]);
    expect(calls[0]).toBe('insert recording_minutes_rebuild_1 1');
    expect(calls[1]).toMatch(/^ALTER TABLE `recording_minutes_rebuild_1` DELETE/);
  });
});
