import { RetentionService } from './retention.service';

describe('RetentionService.sweep', () => {
  const DAY = 86_400_000;
  function make(tenants: { id: string; retentionDays?: number }[], expired: Record<string, string[]>, counts: Record<string, number>) {
    const deleted: string[] = [];
    const queries: string[] = [];
    const svc = new RetentionService(
      { listTenants: () => tenants } as never,
      { rows: async (q: { text: string }) => { queries.push(q.text); const t = /tenant_id = '([^']+)'/.exec(q.text)![1]; return (expired[t] ?? []).map((recording_id) => ({ recording_id })); } } as never,
      {
        messageCounts: async (_t: string, id: string) => ({ ev: counts[id] ?? 0, meta: 0, del: 0 }),
        deleteRecording: async (t: string, id: string) => void deleted.push(`${t}/${id}`),
      } as never,
      { migrated: true } as never,
      { RETENTION_SWEEP_SECONDS: 0 } as never,
    );
    return { svc, deleted, queries };
  }

  it('deletes expired recordings of tenants with a retention period only', async () => {
    const { svc, deleted, queries } = make(
      [{ id: 'a', retentionDays: 30 }, { id: 'b' }],
      { a: ['r1', 'r2'], b: ['r3'] },
      { r1: 3, r2: 0, r3: 5 },
    );
    const now = 100 * DAY;
    expect(await svc.sweep(now)).toBe(1);
    expect(deleted).toEqual(['a/r1']); // r2 was already purged; tenant b keeps everything
    expect(queries).toHaveLength(1);
    expect(queries[0]).toContain(`max(max_ts) < ${now - 30 * DAY}`);
  });
});
