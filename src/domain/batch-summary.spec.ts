// rrweb Cloud's pre-baked metadata: the server's view of the client (address, User-Agent) becomes
// metadata only when a recording-meta payload sets includePii. The rest of the summary is covered
// through the projection (src/projections/recording-projection.spec.ts).
import { clip, MAX_META_VALUE_LENGTH, metadataValue, summarizeBatch, wellFormed } from './batch-summary';
import { clientInfo } from '../ingestion/client-info';

const client = { ip: '203.0.113.7', userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Chrome/130' };
const meta = (payload: Record<string, unknown>, tag = 'recording-meta') => ({ type: 5, timestamp: 1_000, data: { tag, payload } });
const snapshot = { type: 2, timestamp: 1_001, data: { node: { type: 0, id: 1, childNodes: [] } } };

describe('summarizeBatch: client metadata with includePii', () => {
  it.each([true, 'true'])('adds ipAddress and userAgent when recording-meta sets includePii %p', (includePii) => {
    expect(summarizeBatch([meta({ domain: 'shop.test', includePii }), snapshot], 10, client).meta).toEqual({
      ipAddress: '203.0.113.7',
      userAgent: client.userAgent,
      domain: 'shop.test',
      includePii: 'true',
    });
  });

  it.each([
    ['includePii false', [meta({ includePii: false })]],
    ['no includePii', [meta({ domain: 'shop.test' })]],
    ['includePii only on a pageview-meta', [meta({ includePii: true }, 'pageview-meta')]],
    ['no metadata event at all', [snapshot]],
  ])('adds nothing of the client with %s', (_name, events) => {
    const m = summarizeBatch(events, 10, client).meta ?? {};
    expect(m).not.toHaveProperty('ipAddress');
    expect(m).not.toHaveProperty('userAgent');
  });

  it("keeps the payload's own keys of the same names, and skips what the server does not know", () => {
    expect(summarizeBatch([meta({ includePii: true, userAgent: 'set by the page' })], 10, client).meta).toMatchObject({
      userAgent: 'set by the page',
      ipAddress: '203.0.113.7',
    });
    expect(summarizeBatch([meta({ includePii: true })], 10, {}).meta).toEqual({ includePii: 'true' });
  });
});

describe('clientInfo', () => {
  it("takes the address it is given (the trusted proxies' view) and the User-Agent", () => {
    expect(clientInfo({ 'user-agent': 'UA' }, '198.51.100.1')).toEqual({ ip: '198.51.100.1', userAgent: 'UA' });
    expect(clientInfo({}, undefined)).toEqual({ ip: undefined, userAgent: undefined });
  });

  it('writes IPv4-mapped IPv6 addresses as IPv4 and keeps real IPv6', () => {
    expect(clientInfo({}, '::ffff:192.0.2.4').ip).toBe('192.0.2.4');
    expect(clientInfo({}, '2001:db8::1').ip).toBe('2001:db8::1');
  });
});

describe('summarizeBatch: strings bound for ClickHouse', () => {
  const emoji = '\u{1F600}';

  it('replaces lone surrogates in in-band metadata keys and values, and in the Meta href, with U+FFFD', () => {
    const s = summarizeBatch(
      [{ type: 4, timestamp: 1, data: { href: 'https://e.test/\ud800', width: 1, height: 1 } }, meta({ bad: 'x\ud800y', ['k\udc00']: 'v' })],
      10,
    );
    expect(s.meta).toEqual({ bad: 'x\ufffdy', 'k\ufffd': 'v' });
    expect(s.url).toBe('https://e.test/\ufffd');
  });

  it('cuts long values before a surrogate pair, never through it', () => {
    const value = 'a'.repeat(MAX_META_VALUE_LENGTH - 1) + emoji + 'b';
    expect(metadataValue(value)).toBe('a'.repeat(MAX_META_VALUE_LENGTH - 1));
    expect(summarizeBatch([meta({ long: value })], 10).meta!.long).toBe('a'.repeat(MAX_META_VALUE_LENGTH - 1));
    expect(metadataValue('a'.repeat(MAX_META_VALUE_LENGTH - 2) + emoji + 'b')).toBe('a'.repeat(MAX_META_VALUE_LENGTH - 2) + emoji);
    const href = 'h'.repeat(2047) + emoji;
    expect(summarizeBatch([{ type: 4, timestamp: 1, data: { href, width: 1, height: 1 } }], 10).url).toBe('h'.repeat(2047));
  });

  it('clip and wellFormed leave ordinary strings alone', () => {
    expect(clip('abc', 5)).toBe('abc');
    expect(clip('abc' + emoji, 4)).toBe('abc');
    expect(clip('abc' + emoji, 5)).toBe('abc' + emoji);
    expect(wellFormed('plain ' + emoji)).toBe('plain ' + emoji);
    expect(wellFormed('\udfff')).toBe('\ufffd');
  });
});
