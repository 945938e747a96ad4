// rrweb Cloud's pre-baked metadata: the server's view of the client (address, User-Agent) becomes
// metadata only when a recording-meta payload sets includePii. The rest of the summary is covered
// through the projection (src/projections/recording-projection.spec.ts).
import { summarizeBatch } from './batch-summary';
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
    expect(summarizeBatch([meta({ includePii: true, userAgent: 'set by the page' })], 10, client).meta).toMatchObject({ userAgent: 'set by the page', ipAddress: '203.0.113.7' });
    expect(summarizeBatch([meta({ includePii: true })], 10, {}).meta).toEqual({ includePii: 'true' });
  });
});

describe('clientInfo', () => {
  const req = (headers: Record<string, string | string[]>, remoteAddress?: string) => ({ headers, socket: { remoteAddress } }) as never;

  it("takes the first X-Forwarded-For entry (as Fastify's trustProxy does), else the peer address", () => {
    expect(clientInfo(req({ 'x-forwarded-for': '198.51.100.1, 10.0.0.2', 'user-agent': 'UA' }, '10.0.0.3'))).toEqual({ ip: '198.51.100.1', userAgent: 'UA' });
    expect(clientInfo(req({}, '127.0.0.1'))).toEqual({ ip: '127.0.0.1', userAgent: undefined });
  });

  it('writes IPv4-mapped IPv6 peers as IPv4 and keeps real IPv6', () => {
    expect(clientInfo(req({}, '::ffff:192.0.2.4')).ip).toBe('192.0.2.4');
    expect(clientInfo(req({}, '2001:db8::1')).ip).toBe('2001:db8::1');
  });
});
