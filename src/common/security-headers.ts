// Security headers of every response, including the ones Fastify and Node write themselves (bad URLs,
// request timeouts, malformed requests) and refused WebSocket upgrades. Responses that are meant to
// be framed (the player page) set their own Content-Security-Policy and keep it.
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { API_VERSION } from '../version';

/** For data responses: never rendered as a document, never framed. */
export const DATA_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** Whether a CSP source list (PLAYER_FRAME_ANCESTORS) can be put in a directive as it is. */
export function isSourceList(s: string): boolean {
  return /^[^;,\u0000-\u001f\u007f]+$/.test(s);
}

/** Routes answered into a frame: the player page, and so its errors too (an embed must show them). */
const FRAMED_ROUTE = /^\/recordings\/:recordingId\/(?:player|player\.html|preview)$/;

/**
 * The CSP of a data answer (an error) on a route whose page may be framed by `frameAncestors`
 * (PLAYER_FRAME_ANCESTORS): an expired link in an embedded player showed the browser's "refused to
 * connect" instead of the message. Undefined on other routes, or for a source list the player would
 * refuse too.
 */
export function framedErrorCsp(route: string | undefined, frameAncestors: string): string | undefined {
  if (!route || !FRAMED_ROUTE.test(route) || !isSourceList(frameAncestors)) return undefined;
  return DATA_CSP.replace("frame-ancestors 'none'", `frame-ancestors ${frameAncestors}`);
}

export const BASE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'content-security-policy': DATA_CSP,
  'x-frame-options': 'DENY',
};

/** A complete plain-text HTTP/1.1 response for raw sockets (client errors, refused upgrades). */
export function rawTextResponse(status: number, body: string, headers: Record<string, string> = {}, contentType = 'text/plain; charset=utf-8'): Buffer {
  const b = Buffer.from(body, 'utf8');
  const all = {
    'content-type': contentType,
    'content-length': String(b.length),
    ...BASE_SECURITY_HEADERS,
    'x-tapedeck-api-version': API_VERSION,
    ...headers,
    connection: 'close',
  };
  const head =
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\n` +
    Object.entries(all)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('') +
    '\r\n';
  return Buffer.concat([Buffer.from(head, 'latin1'), b]);
}

/**
 * Fastify's `clientErrorHandler`: requests Node refuses before routing. 408 when the request was not
 * received within REQUEST_TIMEOUT_MS, 431 for oversized headers, else 400; the connection is closed.
 */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, message] =
    err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'The request was not received in time']
      : err.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'Request headers are too large']
        : [400, 'Malformed HTTP request'];
  const started = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent;
  // As Node does: the small response goes out in one write, then the connection is dropped.
  if (socket.writable && !started) socket.write(rawTextResponse(status, message));
  socket.destroy();
}

/** Response headers a page of another origin needs to read an answer (the CORS setup exposes them). */
export const CORS_EXPOSED_HEADERS = ['ETag', 'Retry-After', 'X-Request-Id', 'X-Tapedeck-Api-Version'];

/**
 * Fastify's `frameworkErrors`: errors raised while routing (bad percent-encoding, too long a parameter).
 * Neither the hooks nor CORS run for these, so the answer carries their headers itself: the API
 * version and request id of every response, and CORS so that a page of another origin can read it.
 */
export function frameworkErrors(err: FastifyError, req: FastifyRequest, reply: FastifyReply): void {
  const [status, message] =
    err.code === 'FST_ERR_BAD_URL'
      ? [400, 'Malformed percent-encoding in the URL']
      : err.code === 'FST_ERR_MAX_PARAM_LENGTH'
        ? [414, 'A path segment of this URL is too long']
        : [400, 'Bad request'];
  const origin = req.headers.origin;
  const cors: Record<string, string> = origin
    ? { 'access-control-allow-origin': origin, vary: 'Origin', 'access-control-expose-headers': CORS_EXPOSED_HEADERS.join(',') }
    : {};
  void reply
    .code(status)
    .headers({
      ...BASE_SECURITY_HEADERS,
      ...cors,
      'x-request-id': String(req.id),
      'x-tapedeck-api-version': API_VERSION,
      'content-type': 'text/plain; charset=utf-8',
    })
    .send(message);
}
