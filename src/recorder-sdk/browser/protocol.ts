// The wire format of docs/websocket.md (Tapedeck batch frames) and how the recorder reacts to a
// refused batch. Pure functions, no DOM.

export const PING_FRAME = '{"type":"ping"}';

/** Where a recording's events go: POST `http`, or the socket at `websocket` (the key as its token). */
export function eventUrls(serverUrl: string, recordingId: string, publicKey: string, websocket: boolean): { http: string; websocket: string | null } {
  const http = `${serverUrl}/recordings/${encodeURIComponent(recordingId)}/events`;
  // watch=1: this client understands `watch` frames (docs/websocket.md).
  return { http, websocket: websocket ? `${http.replace(/^http/, 'ws')}/ws?token=${encodeURIComponent(publicKey)}&watch=1` : null };
}

/** A batch frame; `body` is already a JSON array text of events. */
export function batchFrame(batchId: string, body: string): string {
  return `{"type":"batch","batch":${JSON.stringify(batchId)},"events":${body}}`;
}

export type ServerFrame =
  | { type: 'ack'; batch: string }
  | { type: 'error'; status: number; message: string; batch?: string; retryAfter?: number }
  | { type: 'pong' }
  | { type: 'watch'; seconds: number }
  | { type: 'other' };

export function parseServerFrame(data: unknown): ServerFrame {
  if (typeof data !== 'string') return { type: 'other' };
  let frame: unknown;
  try {
    frame = JSON.parse(data);
  } catch {
    return { type: 'other' };
  }
  if (typeof frame !== 'object' || frame === null) return { type: 'other' };
  const f = frame as Record<string, unknown>;
  if (f.type === 'ack' && typeof f.batch === 'string') return { type: 'ack', batch: f.batch };
  if (f.type === 'pong') return { type: 'pong' };
  if (f.type === 'watch' && typeof f.seconds === 'number' && f.seconds > 0) return { type: 'watch', seconds: Math.min(f.seconds, 300) };
  if (f.type === 'error') {
    return {
      type: 'error',
      status: typeof f.status === 'number' ? f.status : 0,
      message: typeof f.message === 'string' ? f.message : '',
      ...(typeof f.batch === 'string' ? { batch: f.batch } : {}),
      // Seconds, as HTTP's Retry-After (429, 503, 507): how long the server asks the client to wait.
      ...(typeof f.retryAfter === 'number' && Number.isFinite(f.retryAfter) && f.retryAfter > 0 ? { retryAfter: f.retryAfter } : {}),
    };
  }
  return { type: 'other' };
}

/**
 * What to do with a batch the server answered with `status`:
 * - `ack`: stored;
 * - `drop`: a 4xx other than 408/429 can never succeed, drop the batch;
 * - `fallback`: 502/503, the WebSocket path is unhealthy, send over HTTP for a while;
 * - `retry`: anything else (429, 408, 5xx, network), send again later.
 */
export type Outcome = 'ack' | 'drop' | 'fallback' | 'retry';

export function classifyStatus(status: number): Outcome {
  if (status >= 200 && status < 300) return 'ack';
  if (status >= 400 && status < 500 && status !== 408 && status !== 429) return 'drop';
  if (status === 502 || status === 503) return 'fallback';
  return 'retry';
}

/** The longest wait before a retry, whatever the server asks (HTTP Retry-After, an error frame's retryAfter). */
export const MAX_RETRY_DELAY_MS = 60_000;

/** How long to wait before sending again: the server's `retryAfterMs` or the backoff, the longer, capped. */
export function retryDelay(retryAfterMs: number, backoffMs: number): number {
  return Math.min(MAX_RETRY_DELAY_MS, Math.max(retryAfterMs, backoffMs));
}

/** UTF-8 length of a string, without allocating (for the keepalive body limit). */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/** The HTTP scheme serving the same origin as `protocol` (`ws:` is `http:`, `wss:` is `https:`). */
export function httpScheme(protocol: string): string {
  return protocol === 'ws:' ? 'http:' : protocol === 'wss:' ? 'https:' : protocol;
}

/**
 * Whether a Content-Security-Policy violation's `blockedURI` is the Tapedeck server. Browsers report
 * the blocked URL (a ws:/wss: one for a socket) or, for some directives, only its origin.
 */
export function isServerUrl(blockedUri: string, serverUrl: string): boolean {
  let blocked: URL;
  let server: URL;
  try {
    blocked = new URL(blockedUri);
    server = new URL(serverUrl);
  } catch {
    return false;
  }
  return httpScheme(blocked.protocol) === httpScheme(server.protocol) && blocked.host === server.host;
}

/** The fields of a SecurityPolicyViolationEvent that blockedByPolicy() reads. */
export interface PolicyViolation {
  disposition: string;
  effectiveDirective: string;
  blockedURI: string;
}

/**
 * What a Content-Security-Policy violation means for delivery to `serverUrl`: `websocket` (sockets are
 * blocked, HTTP remains), `all` (requests are blocked), or null (report-only, or not a connection to
 * the server: an <img> of the service blocked by img-src says nothing about delivery). connect-src
 * (or default-src, reported as connect-src) governs fetch and WebSocket.
 */
export function blockedByPolicy(ev: PolicyViolation, serverUrl: string): 'websocket' | 'all' | null {
  if (ev.disposition === 'report') return null;
  if (ev.effectiveDirective !== 'connect-src' || !isServerUrl(ev.blockedURI, serverUrl)) return null;
  return /^wss?:/i.test(ev.blockedURI) ? 'websocket' : 'all';
}

/** The slowest uplink the recorder waits for before it calls a silent socket dead (64 KiB/s). */
export const SLOW_LINK_BYTES_PER_S = 64 * 1024;

/** How much longer than the usual limits to wait for `bytes` still on their way up a slow link. */
export function slowLinkMs(bytes: number): number {
  return Math.ceil((Math.max(0, bytes) / SLOW_LINK_BYTES_PER_S) * 1000);
}
