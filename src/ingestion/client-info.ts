// Who sent a request, as far as the server can tell: the address (as the trusted proxies report it,
// common/trust-proxy.ts; else the socket's peer) and the User-Agent header. Used only for rrweb
// Cloud's pre-baked metadata when a client's recording-meta sets includePii (batch-summary.ts).
import type { IncomingHttpHeaders } from 'node:http';
import type { ClientInfo } from '../domain/batch-summary';

/** `address`: Fastify's req.ip, or clientAddress() of the WebSocket upgrade. */
export function clientInfo(headers: IncomingHttpHeaders, address: string | undefined): ClientInfo {
  return { ip: address?.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, '') || undefined, userAgent: firstHeader(headers['user-agent']) || undefined };
}

/** A header's first value (Node gives repeated headers as an array). */
export function firstHeader(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}
