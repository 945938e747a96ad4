import { chooseIdle } from './thumbnail-sweep';
import type { ClickHouse } from '../../infrastructure/clickhouse/clickhouse-client';
import type { Sql } from '../../infrastructure/clickhouse/sql';
import { ThumbnailCandidatesRepository } from './thumbnail-candidates.repository';

const rec = (tenantId: string, recordingId: string, storedAt: number) => ({ tenantId, recordingId, storedAt });

describe('chooseIdle', () => {
  it('skips recordings with a thumbnail rendered since their last batch, and repeats', () => {
    const rendered: Record<string, number> = { 't/old': 50, 't/current': 200 };
    const found = [rec('t', 'old', 100), rec('t', 'current', 100), rec('t', 'none', 100), rec('t', 'none', 100)];
    expect(chooseIdle(found, (t, r) => rendered[`${t}/${r}`], 10).map((c) => c.recordingId)).toEqual(['old', 'none']);
  });

  it('takes tenants in turn, oldest idle first within each, up to the limit', () => {
    const found = [
      rec('busy', 'b1', 1),
      rec('busy', 'b2', 2),
      rec('busy', 'b3', 3),
      rec('busy', 'b4', 4),
      rec('quiet', 'q1', 5),
      rec('other', 'o2', 7),
      rec('other', 'o1', 6),
    ];
    expect(chooseIdle(found, () => undefined, 5).map((c) => c.recordingId)).toEqual(['b1', 'q1', 'o1', 'b2', 'o2']);
    expect(chooseIdle(found, () => undefined, 100)).toHaveLength(7);
    expect(chooseIdle([], () => undefined, 5)).toEqual([]);
  });
});

describe('ThumbnailCandidatesRepository', () => {
  it('finds recordings whose last batch was stored in (since, until], escaped, bounded', async () => {
    const asked: string[] = [];
    const ch = { rows: async (q: Sql) => (asked.push(q.text), []) } as unknown as ClickHouse;
    await new ThumbnailCandidatesRepository(ch).idle({ since: 1000, until: 2000, limit: 50 });
    expect(asked[0]).toContain('WHERE ingested_at >= 1001');
    expect(asked[0]).toContain('WHERE stored_at >= 1001 AND stored_at <= 2000 ORDER BY stored_at LIMIT 50');
  });
});
