import type { ClickHouse } from '../infrastructure/clickhouse/clickhouse-client';
import { lastStoredIn, lastStoredInSql } from './recently-stored.sql';

describe('recently stored recordings', () => {
  it('asks only the recordings stored to within the window for their last batch, oldest first, bounded', () => {
    const text = lastStoredInSql({ fromMs: 1000, untilMs: 2000, limit: 50 }).text;
    expect(text).toContain('IN (SELECT tenant_id, recording_id FROM recording_batches WHERE ingested_at >= 1000)');
    expect(text).toMatch(/WHERE stored_at >= 1000 AND stored_at <= 2000 ORDER BY stored_at LIMIT 50$/);
  });

  it('reads the stored time, a 64-bit string, as a number', async () => {
    const ch = { rows: async () => [{ tenant_id: 't', recording_id: 'r', stored: '1500' }] } as unknown as ClickHouse;
    expect(await lastStoredIn(ch, { fromMs: 1000, untilMs: 2000, limit: 50 })).toEqual([{ tenantId: 't', recordingId: 'r', storedAt: 1500 }]);
  });
});
