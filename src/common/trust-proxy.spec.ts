import { clientAddress, parseTrustProxy, trustFunction } from './trust-proxy';

const req = (remoteAddress: string | undefined, xff?: string) =>
  ({ headers: xff === undefined ? {} : { 'x-forwarded-for': xff }, socket: { remoteAddress } }) as never;
const address = (setting: string, remote: string | undefined, xff?: string) => clientAddress(req(remote, xff), trustFunction(parseTrustProxy(setting)));
const DEFAULT = 'loopback,linklocal,uniquelocal';

describe('TRUST_PROXY', () => {
  it('parses true, false, hop counts and address lists, and refuses anything else', () => {
    expect(parseTrustProxy('true')).toBe(true);
    expect(parseTrustProxy('FALSE')).toBe(false);
    expect(parseTrustProxy('2')).toBe(2);
    expect(parseTrustProxy(' loopback, 10.0.0.0/8 ,192.0.2.7 ')).toEqual(['loopback', '10.0.0.0/8', '192.0.2.7']);
    for (const bad of ['', ' , ', 'yes', 'proxy.example.com', '10.0.0.0/99', '-1']) expect(() => parseTrustProxy(bad)).toThrow();
  });

  it('by default believes proxies on loopback and private networks, and takes the rightmost address they did not add', () => {
    // A client on the internet behind the ingress: its own X-Forwarded-For entries are ignored.
    expect(address(DEFAULT, '10.0.0.5', '6.6.6.6, 203.0.113.9')).toBe('203.0.113.9');
    expect(address(DEFAULT, '10.0.0.5', '203.0.113.9, 10.0.0.4')).toBe('203.0.113.9');
    expect(address(DEFAULT, '127.0.0.1', '198.51.100.2')).toBe('198.51.100.2');
    // A client talking to the service directly cannot claim another address.
    expect(address(DEFAULT, '203.0.113.9', '6.6.6.6')).toBe('203.0.113.9');
    expect(address(DEFAULT, '::ffff:203.0.113.9', '6.6.6.6')).toBe('::ffff:203.0.113.9');
    // Everything trusted: the leftmost entry is all that is left.
    expect(address(DEFAULT, '10.0.0.5', '192.168.1.20, 10.0.0.4')).toBe('192.168.1.20');
  });

  it('follows a hop count, false and true', () => {
    expect(address('1', '198.51.100.50', '6.6.6.6, 203.0.113.9')).toBe('203.0.113.9');
    expect(address('2', '198.51.100.50', '6.6.6.6, 203.0.113.9')).toBe('6.6.6.6');
    expect(address('false', '127.0.0.1', '6.6.6.6')).toBe('127.0.0.1');
    expect(address('true', '198.51.100.50', '6.6.6.6, 203.0.113.9')).toBe('6.6.6.6');
  });

  it('gives the peer without X-Forwarded-For, and nothing without a peer', () => {
    expect(address(DEFAULT, '127.0.0.1')).toBe('127.0.0.1');
    expect(address(DEFAULT, undefined, '6.6.6.6')).toBeUndefined();
  });
});
