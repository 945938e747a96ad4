// Who sent a request, as far as the server can tell: the address (the first X-Forwarded-For entry,
// as Fastify's trustProxy reads it, else the socket's peer) and the User-Agent header. Used only for
// rrweb Cloud's pre-baked metadata when a client's recording-meta sets includePii (batch-summary.ts).
import type { IncomingMessage } from 'node:http';
import type { ClientInfo } from '../domain/batch-summary';

export function clientInfo(req: Pick<IncomingMessage, 'headers' | 'socket'>): ClientInfo {
  const forwarded = firstHeader(req.headers['x-forwarded-for'])?.split(',')[0]?.trim();
  const ip = forwarded || req.socket?.remoteAddress || undefined;
  return { ip: ip?.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, ''), userAgent: firstHeader(req.headers['user-agent']) || undefined };
}

/** A header's first value (Node gives repeated headers as an array). */
export function firstHeader(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}
