// Which peers may tell us, in X-Forwarded-For / -Proto / -Host, who the client is (TRUST_PROXY).
// The client's address is the rightmost X-Forwarded-For entry not added by a trusted proxy: proxies
// append to the right, so everything further left is what the client itself wrote and can be made
// up. Fastify (req.ip, req.protocol) and the WebSocket upgrade read it with the same rule.
import proxyAddr from '@fastify/proxy-addr';
import type { IncomingMessage } from 'node:http';

/** `true` (every peer: only behind proxies that overwrite the header), `false`, a hop count, or addresses. */
export type TrustProxy = boolean | number | string[];

export type TrustFn = (addr: string, hop: number) => boolean;

/**
 * `true`/`false`, a number of hops, or a comma-separated list of IPs, CIDRs and the names
 * `loopback`, `linklocal`, `uniquelocal` (private networks). Throws on anything else.
 */
export function parseTrustProxy(raw: string): TrustProxy {
  const v = raw.trim();
  if (/^(true|false)$/i.test(v)) return v.toLowerCase() === 'true';
  if (/^\d{1,2}$/.test(v)) return Number(v);
  const list = v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (!list.length) throw new Error('must be true, false, a hop count or a list of addresses/CIDRs');
  proxyAddr.compile(list); // throws on an invalid address or range
  return list;
}

/** The same predicate Fastify builds from its trustProxy option. */
export function trustFunction(trust: TrustProxy): TrustFn {
  if (trust === true) return () => true;
  if (trust === false) return () => false;
  if (typeof trust === 'number') return (_addr, hop) => hop < trust;
  return proxyAddr.compile(trust);
}

/** The client's address as the trusted proxies report it, else the socket's peer. */
export function clientAddress(req: Pick<IncomingMessage, 'headers' | 'socket'>, trust: TrustFn): string | undefined {
  if (!req.socket?.remoteAddress) return undefined;
  return proxyAddr(req as IncomingMessage, trust);
}
