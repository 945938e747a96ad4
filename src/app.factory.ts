// Builds the Fastify-backed Nest application for a configuration. main.ts serves it; tests and the
// benchmark boot it the same way.
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { LogController } from 'fastify';
import { randomUUID } from 'node:crypto';
import { AppModule, servesApi } from './app.module';
import { describeError, ErrorFilter } from './common/error.filter';
import { buildOpenApiDocument } from './common/openapi/openapi-document';
import { ZodValidationPipe } from './common/zod-validation.pipe';
import { BASE_SECURITY_HEADERS, clientErrorHandler, CORS_EXPOSED_HEADERS, framedErrorCsp, frameworkErrors } from './common/security-headers';
import { Logger, nestLogger, processLogger } from './common/logger';
import { lingerAfterEarlyAnswer } from './common/lingering-close';
import { malformedQueryEncoding } from './common/query-encoding';
import type { AppConfig } from './config/config';
import { API_VERSION } from './version';
import { MetricsService } from './metrics/metrics.service';
import { INGEST_ROUTE, IngestionService } from './ingestion/ingestion.service';

const RAW_BODY_TYPES = ['application/json', 'application/x-ndjson', 'application/ndjson', 'text/plain'];
/** How long a connection answered before its body was read stays open to take the rest (common/lingering-close.ts). */
const LINGER_MS = 5000;

/** How long a connection whose refused body is left unread stays open: the client reads the answer meanwhile. */
const UNREAD_LINGER_MS = 1000;

/** `logger`: the process's one logger (main.ts makes it first, to log the start), else one for LOG_LEVEL. */
export async function createApp(cfg: AppConfig, opts: { shutdownHooks?: boolean; logger?: Logger } = {}): Promise<NestFastifyApplication> {
  const logger = opts.logger ?? processLogger(cfg.LOG_LEVEL, cfg.LOG_FORMAT);
  const adapter = new FastifyAdapter({
    bodyLimit: cfg.INGEST_MAX_BODY_BYTES,
    // Fastify's default is no limit, so a client sending its body a byte at a time held a connection
    // (and its buffered body) forever. Node answers 408 and closes; it checks every interval below.
    requestTimeout: cfg.REQUEST_TIMEOUT_MS,
    http: {
      headersTimeout: Math.min(60_000, cfg.REQUEST_TIMEOUT_MS),
      connectionsCheckingInterval: Math.min(5_000, Math.max(250, Math.floor(cfg.REQUEST_TIMEOUT_MS / 4))),
    },
    trustProxy: cfg.TRUST_PROXY,
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
    // Per-request log lines only at debug level. (The top-level disableRequestLogging option printed a
    // non-JSON deprecation warning on every start.)
    logController: new LogController({ disableRequestLogging: cfg.LOG_LEVEL !== 'debug' }),
    loggerInstance: logger,
    // replayValue may be 500 characters, percent-encoded up to 9 bytes each.
    routerOptions: { maxParamLength: 8192 },
    clientErrorHandler,
    frameworkErrors,
    forceCloseConnections: false,
    return503OnClosing: true,
  });
  const fastify = adapter.getInstance();
  // Bodies stay raw Buffers: ingestion needs the bytes (gzip, NDJSON), and every JSON endpoint parses
  // through common/request-body so errors are uniform.
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser(RAW_BODY_TYPES, { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
  fastify.addHook('onRequest', async (req, reply) => {
    const bad = malformedQueryEncoding(req.url);
    if (bad) return reply.code(400).type('text/plain; charset=utf-8').send(`The query string is not valid UTF-8 (at ${bad})`);
  });
  // Once closing, answers end their connection: Node closes the keep-alive connections idle at the
  // close, but one busy then stayed open after its answer until the 72 s keep-alive timeout, and the
  // server's close (the graceful stop) waited for it.
  let closing = false;
  fastify.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  fastify.addHook('onSend', async (req, reply) => {
    if (closing) reply.header('connection', 'close');
    lingerAfterEarlyAnswer(req.raw, Math.min(LINGER_MS, cfg.REQUEST_TIMEOUT_MS));
    reply.header('x-request-id', req.id);
    reply.header('x-tapedeck-api-version', API_VERSION);
    // Pages meant to be framed (the player) set their own CSP and Referrer-Policy and keep them; their
    // errors may be framed as they are.
    const framedError = reply.hasHeader('content-security-policy') ? undefined : framedErrorCsp(req.routeOptions?.url, cfg.PLAYER_FRAME_ANCESTORS);
    if (framedError) reply.header('content-security-policy', framedError);
    const ownCsp = reply.hasHeader('content-security-policy');
    for (const [k, v] of Object.entries(BASE_SECURITY_HEADERS)) {
      if (k === 'x-frame-options' ? !ownCsp : !reply.hasHeader(k)) reply.header(k, v);
    }
    if (cfg.HSTS_MAX_AGE_SECONDS > 0 && req.protocol === 'https') reply.header('strict-transport-security', `max-age=${cfg.HSTS_MAX_AGE_SECONDS}`);
    // Answers that may be cached say so themselves (assets, the SDK, screenshots); no other may be
    // stored: a presigned read carries no Authorization header, so a shared cache would keep it
    // past the link's expiry or the recording's deletion.
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
  });

  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(cfg), adapter, {
    logger: nestLogger(logger),
    bufferLogs: false,
    bodyParser: false,
  });
  app.useGlobalFilters(new ErrorFilter());
  app.useGlobalPipes(new ZodValidationPipe());
  const metrics = app.get(MetricsService);
  // A tenant known to be over an ingestion limit is answered before its body is read. The body is
  // then read and dropped as it arrives (the connection lingers, common/lingering-close.ts, or
  // carries the client's next request) when it is small or within the tenant's allowance of refused
  // bytes; otherwise it is not read at all and the connection closes a second after the answer, so
  // a client resending large bodies at once costs the service no more than their headers
  // (limits/refused-bodies.ts). A tenant's request ahead of its rates in this process waits here,
  // its body unread, until its turn (limits/pacer.ts). Roles without ingestion (projector,
  // keyframe-maker) have no ingestion routes to guard.
  if (servesApi(cfg)) {
    const ingestion = app.get(IngestionService);
    fastify.addHook('preParsing', (req, reply, payload, done) => {
      const before = (req.routeOptions.config as unknown as Record<string, unknown> | undefined)?.[INGEST_ROUTE]
        ? ingestion.beforeBody(req.headers.authorization, req.query, Number(req.headers['content-length'] ?? NaN))
        : undefined;
      if (!before) return done(null, payload);
      if (!before.error) return void setTimeout(() => done(null, payload), before.waitSeconds * 1000);
      const d = describeError(before.error);
      if (!before.readBody) {
        // Consumed as far as Node knows, so that it does not drain the body once the answer is sent
        // (it does unless the request was read from), and paused: the socket stops being read once
        // a chunk is buffered. The client reads the answer meanwhile. read(), not read(0): after an
        // async onRequest hook the first chunks are buffered already, and read(0) on a full buffer
        // reads nothing, so Node took the request for unread and drained the whole body (a client
        // resending refused 8 MiB uploads had the service reading 250 MB/s).
        req.raw.pause();
        req.raw.read();
        lingerAfterEarlyAnswer(req.raw, UNREAD_LINGER_MS);
        reply.header('connection', 'close');
      }
      void reply.code(d.status).headers(d.headers).type(d.contentType).send(d.body);
    });
  }
  // `Expect: 100-continue` (curl's uploads above 1 MiB): Node would answer "100 Continue" before any
  // hook ran, and the client would send its whole body to be refused. The go-ahead is given here
  // instead, as the request goes on to read its body: one refused before that (the refusal above)
  // gets its answer in its place and sends nothing.
  fastify.server.on('checkContinue', (req, res) => fastify.server.emit('request', req, res));
  fastify.addHook('preParsing', (req, reply, payload, done) => {
    if (/^100-continue$/i.test(String(req.headers.expect ?? '').trim())) reply.raw.writeContinue();
    done(null, payload);
  });
  fastify.addHook('onResponse', async (req, reply) => {
    metrics.httpDuration.observe(
      { method: req.method, route: req.routeOptions?.url ?? 'unmatched', status: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
  });
  // Graceful stop on SIGTERM/SIGINT: Fastify finishes in-flight requests, then providers drain NATS.
  if (opts.shutdownHooks !== false) app.enableShutdownHooks(['SIGTERM', 'SIGINT']);
  app.enableCors({
    origin: true,
    methods: ['GET', 'POST', 'DELETE', 'OPTIONS'],
    // If-None-Match: a viewer revalidating a screenshot or player it keeps; X-Request-Id: the caller's own id.
    allowedHeaders: ['Authorization', 'Content-Type', 'Content-Encoding', 'Idempotency-Key', 'If-None-Match', 'X-Request-Id'],
    exposedHeaders: CORS_EXPOSED_HEADERS,
    maxAge: 600,
  });

  const doc = buildOpenApiDocument(app);
  fastify.get('/openapi.json', async (_req, reply) => reply.header('content-type', 'application/json; charset=utf-8').send(doc));
  return app;
}
