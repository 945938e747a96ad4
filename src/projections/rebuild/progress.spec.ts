import { formatProgress } from './progress';

describe('rebuild progress', () => {
  it('shows percent of the range, rate and ETA', () => {
    const line = formatProgress({ phase: 'recordings rebuild', read: 500, seq: 500, fromSeq: 1, toSeq: 1000, elapsedMs: 10_000 }, 10);
    expect(line).toBe('recordings rebuild [#####-----] 50.0% seq 500/1000 500 msgs 50 msg/s ETA 00:10');
  });

  it('handles the start and the end of a range', () => {
    expect(formatProgress({ phase: 'tail', read: 0, seq: 0, fromSeq: 1, toSeq: 0, elapsedMs: 0 }, 4)).toContain('ETA --:--');
    expect(formatProgress({ phase: 'tail', read: 9, seq: 9, fromSeq: 1, toSeq: 9, elapsedMs: 3_700_000 }, 4)).toContain('100.0%');
  });
});
