import { matchingRecordingsSql } from './metadata-filter.sql';

describe('matchingRecordingsSql', () => {
  it('escapes tricky keys and values as literals', () => {
    const text = matchingRecordingsSql("t'1", [
      { key: "it's", value: "a\\'b" },
      { key: '__proto__', value: '名前\n' },
    ]).text;
    expect(text).toContain("tenant_id = 't\\'1'");
    expect(text).toContain("key = 'it\\'s' AND value = 'a\\\\\\'b'");
    expect(text).toContain("key = '__proto__' AND value = '名前\\x0a'");
    expect(text).toContain("key IN ('it\\'s', '__proto__')");
    expect(text).toContain("countIf(key = 'it\\'s') > 0 AND argMaxIf(value, seq, key = 'it\\'s') = 'a\\\\\\'b'");
    // No raw quote of a value ever closes a literal early.
    expect(text).not.toMatch(/[^\\]'s'/);
  });

  it('nests candidates so the first filter narrows the next', () => {
    const text = matchingRecordingsSql('t', [
      { key: 'sessionId', value: 's1' },
      { key: 'env', value: 'prod' },
    ]).text;
    const inner = text.indexOf("key = 'sessionId' AND value = 's1'");
    const outer = text.indexOf(
      "key = 'env' AND value = 'prod' AND recording_id IN (SELECT recording_id FROM recording_metadata_by_key WHERE tenant_id = 't' AND key = 'sessionId'",
    );
    expect(inner).toBeGreaterThan(0);
    expect(outer).toBeGreaterThan(0);
    expect(text).toContain('seq > deleted_seq');
    expect(text).toContain('FROM deleted_recordings WHERE tenant_id = ');
  });

  it('needs a filter', () => {
    expect(() => matchingRecordingsSql('t', [])).toThrow(TypeError);
  });
});
