import { KeyframesSql, keyframesFromRows } from './keyframes.repository';

describe('keyframes from recording_keyframes rows', () => {
  it('pairs a waiting Meta with the FullSnapshot opening a later batch, as reads pair summaries', () => {
    const rows = [
      { kind: 'open', ts: '2001', seq: '9' },
      { kind: 'kf', ts: '100', seq: '3' },
      { kind: 'kf', ts: '3000', seq: '9' },
      { kind: 'meta', ts: '2000', seq: '7' },
      { kind: 'meta', ts: 4000, seq: 12 }, // 25.8 answers numbers; never followed by its FullSnapshot
    ] as const;
    expect(keyframesFromRows(rows)).toEqual([
      { ts: 100, seq: 3 },
      { ts: 2000, seq: 7 },
      { ts: 3000, seq: 9 },
    ]);
  });

  it('adds server-made keyframes on their own, without breaking a pairing, and leaves failed attempts out', () => {
    const rows = [
      { kind: 'meta', ts: '2000', seq: '7' },
      { kind: 'server', ts: '2500', seq: '8' }, // stored between a Meta and the batch with its FullSnapshot
      { kind: 'open', ts: '2001', seq: '9' },
      { kind: 'server', ts: '1000', seq: '5' },
      { kind: 'failed', ts: '3000', seq: '10' },
    ] as const;
    expect(keyframesFromRows(rows)).toEqual([
      { ts: 1000, seq: 5, server: true },
      { ts: 2000, seq: 7 },
      { ts: 2500, seq: 8, server: true },
    ]);
  });

  it('reads one recording of one tenant, below its deletion marker, with values escaped', () => {
    const q = KeyframesSql.rows("t'1", 'r1').text;
    expect(q).toContain("tenant_id = 't\\'1' AND recording_id = 'r1'");
    expect(q).toContain('deleted_seq');
  });
});
