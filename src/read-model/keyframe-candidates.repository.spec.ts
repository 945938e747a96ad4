import { KeyframeCandidatesSql, RECENT_MS } from './keyframe-candidates.repository';

describe('keyframe candidates SQL', () => {
  const q = { everyMs: 300_000, everyBytes: 5_000_000, maxFailures: 3, nowMs: 10 * RECENT_MS, limit: 8 };

  it('asks for recordings stored to recently whose last keyframe or attempt is an interval behind their end', () => {
    const text = KeyframeCandidatesSql.candidates(q).text;
    expect(text).toContain(`ingested_at >= ${9 * RECENT_MS}`);
    expect(text).toContain('(last_ts - greatest(kf_ts, first_ts) >= 300000 OR bytes_after >= 5000000)');
    expect(text).toContain('failures < 3');
    expect(text).toMatch(/LIMIT 8$/);
  });

  it('leaves out the criterion turned off', () => {
    expect(KeyframeCandidatesSql.candidates({ ...q, everyBytes: 0 }).text).not.toContain('bytes_after >=');
    expect(KeyframeCandidatesSql.candidates({ ...q, everyMs: 0 }).text).not.toContain('greatest(kf_ts, first_ts) >=');
  });
});
