// WebSocket ingestion (protocol: docs/websocket.md). Auth happens on the HTTP upgrade, with the same
// Authenticator as HTTP. A batch frame is acknowledged only after JetStream stored it; compatible
// rrweb-client frames are buffered (256 KiB / 250 ms) and their flush is reported by an
// upstream-result frame. At most WS_INFLIGHT_BYTES per connection wait for JetStream; above that the
// socket stops being read, so a slow JetStream cannot grow memory without bound.
import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import { AppError } from '../common/app-error';
import { contentCoding } from '../common/content-coding';
import { malformedQueryEncoding, queryObject } from '../common/query-encoding';
import { describeError } from '../common/error.filter';
import { rawTextResponse } from '../common/security-headers';
import type { AuthContext } from '../auth/auth-context';
import { Authenticator } from '../auth/authenticator';
import { TenantRegistry } from '../auth/tenant-registry';
import { refusalFor } from '../auth/tenant-status';
import { APP_CONFIG, AppConfig } from '../config/config';
import { TenantLimiter } from '../limits/tenant-limiter.service';
import { IngestionService } from './ingestion.service';
import { MetricsService } from '../metrics/metrics.service';
import { clientInfo } from './client-info';
import { clientAddress, TrustFn, trustFunction } from '../common/trust-proxy';
import { recordingIdFrom } from './recording-id';
import { WatchSignals } from '../live/watch-signals';
import { IngestConnection, WsOptions } from './websocket-connection';

const PATH = /^\/recordings\/([^/]+)\/(?:events|ingest)\/ws\/?$/;
/** Where rrweb's clients connect with `?recordingId=` (serverUrl without `{recordingId}`): /, /ws, /events/ws, /ingest/ws. */
const QUERY_ID_PATH = /^\/(?:(?:events|ingest)\/ws|ws)?\/?$/;

@Injectable()
export class WebSocketIngestion implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('ws');
  private readonly wss: WebSocketServer;
  /** Open connections, with who opened them (closed when their key is revoked). */
  private readonly connections = new Map<IngestConnection, AuthContext>();
  private readonly stopRevocations: () => void;
  private closing = false;
  private readonly trustProxy: TrustFn;
  /** Refusals HTTP's duration histogram never sees: upgrades answered without Nest, and error frames. */
  private readonly refused: (labels: { kind: 'upgrade' | 'frame'; status: number }) => void;

  constructor(
    private readonly host: HttpAdapterHost,
    private readonly authenticator: Authenticator,
    registry: TenantRegistry,
    private readonly ingestion: IngestionService,
    @Inject(APP_CONFIG) private readonly cfg: AppConfig,
    metrics: MetricsService,
    private readonly limits: TenantLimiter,
    private readonly watch: WatchSignals,
  ) {
    metrics.gauge('tapedeck_ws_connections', 'Open ingestion WebSockets', () => this.connections.size);
    this.refused = metrics.labelledCounter(
      'tapedeck_ws_refused_total',
      'WebSocket upgrades refused (kind "upgrade") and error frames sent (kind "frame"), by status',
      ['kind', 'status'],
    );
    this.trustProxy = trustFunction(cfg.TRUST_PROXY);
    this.wss = new WebSocketServer({ noServer: true, maxPayload: cfg.WS_MAX_MESSAGE_BYTES, perMessageDeflate: false });
    // A handshake ws itself refuses (method, Sec-WebSocket-Key/Version/Protocol) is answered like
    // every other refusal, security headers included, not with ws's bare text/html response.
    this.wss.on('wsClientError', (err: Error, socket: Duplex) => {
      const [status, headers] = handshakeRefusal(err.message);
      this.refused({ kind: 'upgrade', status });
      refuse(socket, status, 'text/plain; charset=utf-8', err.message, headers);
    });
    const stopKeys = registry.onKeyRevoked(({ tenantId, handle }) => {
      for (const [conn, auth] of this.connections) if (auth.keyHandle === handle && auth.tenantId === tenantId) conn.revoke();
    });
    const stopTenants = registry.onTenantRefused((tenantId, status) => {
      const refusal = refusalFor(tenantId, status);
      for (const [conn, auth] of this.connections) if (auth.tenantId === tenantId) conn.revoke(refusal);
    });
    this.stopRevocations = () => (stopKeys(), stopTenants());
  }

  get size(): number {
    return this.connections.size;
  }

  onApplicationBootstrap() {
    const server = this.host.httpAdapter.getHttpServer() as import('node:http').Server;
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      // Node removes its own error listener from upgrade sockets: without one, a reset by the client
      // (or any write error) would be an unhandled 'error' event and end the process.
      socket.on('error', () => undefined);
      this.upgrade(req, socket, head).catch((e) => {
        // The same answers as HTTP (error filter): 400 JSON for a bad recordingId, 429 with Retry-After…
        const d = describeError(e);
        if (d.errorId) this.logger.error({ msg: 'upgrade failed', errorId: d.errorId, err: String((e as Error)?.stack ?? e) });
        this.refused({ kind: 'upgrade', status: d.status });
        refuse(socket, d.status, d.contentType, d.body, d.headers);
      });
    });
  }

  private async upgrade(req: IncomingMessage, socket: Duplex, head: Buffer) {
    const url = parseUrl(req.url);
    const m = PATH.exec(url.pathname);
    const bad = malformedQueryEncoding(req.url ?? '/');
    if (bad) throw new AppError('bad_request', `The query string is not valid UTF-8 (at ${bad})`);
    // As HTTP routes read it: a repeated token or recordingId is the same 400 here as there.
    const query = queryObject(url.searchParams);
    if (!m && !QUERY_ID_PATH.test(url.pathname)) throw new AppError('not_found', 'No WebSocket endpoint at this path');
    const recordingId = recordingIdFrom(m ? decodePathSegment(m[1]) : query.recordingId);
    const auth = this.authenticator.authenticate(
      { keys: ['public', 'secret'], queryToken: true },
      { authorization: req.headers.authorization, query, params: { recordingId }, origin: req.headers.origin },
    );
    const options = {
      ...wsOptions(query),
      client: clientInfo(req.headers, clientAddress(req, this.trustProxy)),
      onErrorFrame: (status: number) => this.refused({ kind: 'frame', status }),
    };
    this.assertRoom();
    // The tenant's slot (shared by every instance) is freed when this socket closes, however it ends.
    socket.once('close', await this.limits.openWebSocket(auth.tenantId));
    if (socket.destroyed) return;
    this.assertRoom();
    this.wss.handleUpgrade(req, socket, head, (ws: WebSocket) => {
      const conn = new IngestConnection(ws, auth.tenantId, recordingId, options, this.ingestion, this.cfg, this.logger, socket);
      this.connections.set(conn, auth);
      const stopWatching = this.watch.listen(auth.tenantId, recordingId, (seconds) => conn.watchedFor(seconds));
      ws.once('close', () => {
        this.connections.delete(conn);
        stopWatching();
      });
    });
  }

  private assertRoom() {
    if (this.closing) throw new AppError('unavailable', 'The server is shutting down; reconnect');
    if (this.connections.size >= this.cfg.WS_MAX_CONNECTIONS) throw new AppError('unavailable', 'Too many WebSocket connections');
  }

  /**
   * Before the HTTP server closes (Nest closes it between beforeApplicationShutdown and
   * onApplicationShutdown): the server's close waits for every socket, upgraded ones included, so
   * open WebSockets held the shutdown until the orchestrator's SIGKILL, losing what they buffered.
   * New upgrades are refused with 503 from here on.
   */
  async beforeApplicationShutdown() {
    this.closing = true;
    this.stopRevocations();
    await Promise.all([...this.connections.keys()].map((c) => c.shutdown()));
    this.wss.close();
  }
}

/** The connection's options; a repeated one counts by its first value, as it always has. */
function wsOptions(query: Record<string, string | string[]>): Omit<WsOptions, 'client'> {
  const q = (name: string) => {
    const v = query[name];
    return Array.isArray(v) ? v[0] : v;
  };
  const contentType = (q('contentType') ?? 'application/x-ndjson').toLowerCase();
  if (!['application/x-ndjson', 'application/ndjson', 'application/json'].includes(contentType)) {
    throw new AppError('bad_request', 'contentType must be application/x-ndjson, application/ndjson or application/json');
  }
  return {
    format: contentType === 'application/json' ? 'json' : 'ndjson',
    coding: contentCoding(q('contentEncoding'), 'bad_request'),
    // Lenient, as it was when ignored: only true/1 turn it on, anything else leaves it off.
    debug: q('debug') === 'true' || q('debug') === '1',
    watch: q('watch') === '1' || q('watch') === 'true',
  };
}

/** The status (and headers) ws would have answered a handshake it refuses with, by its message. */
function handshakeRefusal(message: string): [number, Record<string, string>] {
  if (message === 'Invalid HTTP method') return [405, { allow: 'GET' }];
  if (message.includes('Sec-WebSocket-Version')) return [400, { 'sec-websocket-version': '13, 8' }];
  return [400, {}];
}

function parseUrl(raw: string | undefined): URL {
  try {
    return new URL(raw ?? '/', 'http://localhost');
  } catch {
    throw new AppError('bad_request', 'Malformed request URL');
  }
}

function decodePathSegment(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    throw new AppError('bad_request', 'Malformed percent-encoding in the path');
  }
}

/** Answers a refused upgrade with a plain HTTP response (one write: the socket is ended with it). */
function refuse(socket: Duplex, status: number, contentType: string, message: string, headers: Record<string, string>) {
  if (socket.destroyed || !socket.writable) return void socket.destroy();
  socket.end(rawTextResponse(status, message, headers, contentType));
}
