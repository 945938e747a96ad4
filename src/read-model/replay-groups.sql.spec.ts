import { ReplayGroupsSql } from './replay-groups.sql';

const filters = [
  { key: 'sessionId', value: "s'1" },
  { key: 'env', value: 'prod' },
];

describe('ReplayGroupsSql', () => {
  it('finds members with the shared metadata filter: by-key index, deletion rule', () => {
    const text = ReplayGroupsSql.members("t'1", filters).text;
    expect(text).toContain("FROM recording_metadata_by_key WHERE tenant_id = 't\\'1' AND key = 'sessionId' AND value = 's\\'1'");
    expect(text).toContain('seq > deleted_seq');
    expect(text).toMatch(/ORDER BY recording_id$/);
    // Only recordings with a visible event batch, as the group listing counts them.
    expect(text).toContain("FROM recording_batches WHERE tenant_id = 't\\'1' AND recording_id IN (SELECT");
    expect(text.match(/seq > deleted_seq/g)!.length).toBeGreaterThanOrEqual(2);
  });

  it('merges metadata of visible rows only, latest write per key across the group', () => {
    const text = ReplayGroupsSql.mergedMetadata('t', filters).text;
    expect(text).toContain('argMax(value, seq) AS value');
    expect(text).toContain("FROM deleted_recordings WHERE tenant_id = 't'");
    expect(text).toMatch(
      /\) AS projected ANY LEFT JOIN \(SELECT recording_id, max\(seq\) AS deleted_seq .*\) AS deletions USING \(recording_id\) WHERE seq > deleted_seq GROUP BY key ORDER BY key$/s,
    );
    expect(text).toContain('recording_id IN (SELECT recording_id FROM recording_metadata_by_key');
  });

  it('lists groups from visible metadata and visible batches, one row more than the page', () => {
    const text = ReplayGroupsSql.listGroups('t', "it's", 10, 20).text;
    expect(text.match(/seq > deleted_seq/g)).toHaveLength(2);
    expect(text).toContain("FROM recording_metadata_by_key WHERE tenant_id = 't' AND key = 'it\\'s'");
    expect(text).not.toMatch(/FROM recording_metadata\b(?!_by_key)/);
    expect(text).toContain('ANY INNER JOIN');
    expect(text).toMatch(/ORDER BY ended_at DESC, value ASC LIMIT 11 OFFSET 20$/);
  });
});
