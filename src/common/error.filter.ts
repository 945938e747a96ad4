// The one global error filter. Application and authentication failures answer text/plain;
// request-schema failures (ValidationError) answer JSON with the failing fields. A 500 carries an
// error id that is logged with the cause; its body never holds a stack or a secret.
import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, headersOf, statusOf } from './app-error';
import { redactUrl } from './redact';
import { setReplyHeaders } from './reply-headers';
import { ValidationError } from './validation';

type FastifyLikeError = { statusCode?: number; code?: string; message?: string };

const BODY_TOO_LARGE = 'Request body is larger than the limit for this endpoint';

/** The 415 of Fastify's content-type check: what was sent (bounded, printable) and what is accepted. */
function unsupportedType(contentType: string | undefined) {
  return { status: 415, contentType: 'text/plain; charset=utf-8', body: unsupportedTypeMessage(contentType), headers: {} };
}

export function unsupportedTypeMessage(contentType: string | undefined): string {
  const sent = (contentType ?? '').replace(/[^\x20-\x7e]/g, '').trim();
  const shown = sent ? `"${sent.length > 100 ? `${sent.slice(0, 100)}…` : sent}"` : '(none sent)';
  return `Unsupported Content-Type ${shown}: send application/json (event ingestion also takes application/x-ndjson, application/ndjson or text/plain)`;
}

/** `contentType`: the request's Content-Type header, named in a 415. */
export function describeError(
  err: unknown,
  contentType?: string,
): {
  status: number;
  contentType: string;
  body: string;
  headers: Record<string, string>;
  errorId?: string;
} {
  if (err instanceof ValidationError) {
    return {
      status: 400,
      contentType: 'application/json; charset=utf-8',
      body: JSON.stringify({ error: 'validation_failed', message: err.message, issues: err.issues }),
      headers: {},
    };
  }
  if (err instanceof AppError) {
    return { status: statusOf(err.code), contentType: 'text/plain; charset=utf-8', body: err.message, headers: headersOf(err) };
  }
  if (err instanceof HttpException) {
    const status = err.getStatus();
    // Fastify's own "body too large" reaches here as an HttpException that Nest built from its
    // message and status (RoutesResolver.mapExternalException), no longer as a Fastify error.
    if (status === 413) return { status, contentType: 'text/plain; charset=utf-8', body: BODY_TOO_LARGE, headers: {} };
    if (status === 415) return unsupportedType(contentType);
    if (status < 500) {
      const res = err.getResponse();
      const msg = typeof res === 'string' ? res : ((res as { message?: unknown }).message ?? err.message);
      // Nest's 404 for an unknown route is "Cannot GET <url>", query and all: no credential echoed.
      return { status, contentType: 'text/plain; charset=utf-8', body: redactUrl(String(msg)), headers: {} };
    }
  }
  // Errors raised by Fastify itself (body too large, bad content type, malformed URL).
  const fe = err as FastifyLikeError;
  if (fe && typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500 && typeof fe.code === 'string' && fe.code.startsWith('FST_')) {
    if (fe.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return unsupportedType(contentType);
    const message = fe.code === 'FST_ERR_CTP_BODY_TOO_LARGE' ? BODY_TOO_LARGE : (fe.message ?? 'Bad request');
    return { status: fe.statusCode, contentType: 'text/plain; charset=utf-8', body: message, headers: {} };
  }
  const errorId = randomUUID();
  return {
    status: 500,
    contentType: 'text/plain; charset=utf-8',
    body: `Internal server error (error id ${errorId})`,
    headers: {},
    errorId,
  };
}

/**
 * The request body stream failed because the client went away mid-body: it closed the connection
 * (a phone losing its network mid-upload) or Node cut a slow body off with 408. Nothing is stored and
 * no answer can reach the client; it is not a server fault, so it is not logged as one.
 */
export function isClientAbort(err: unknown, req?: { raw?: { destroyed?: boolean; socket?: { destroyed?: boolean } | null } }): boolean {
  const e = err as NodeJS.ErrnoException | undefined;
  if (!e || typeof e !== 'object') return false;
  if (e.code === 'ECONNRESET' && e.message === 'aborted') return true;
  // Seen through a pipeline (decompression): the stream closed early because its source was destroyed.
  return e.code === 'ERR_STREAM_PREMATURE_CLOSE' && Boolean(req?.raw?.destroyed || req?.raw?.socket?.destroyed);
}

@Catch()
export class ErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('http');

  catch(err: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const reply = http.getResponse<FastifyReply>();
    const req = http.getRequest<FastifyRequest>();
    if (isClientAbort(err, req)) {
      this.logger.debug({ msg: 'client went away mid-request', method: req?.method, url: redactUrl(req?.url ?? '') });
      if (!reply.sent && !reply.raw.destroyed)
        reply.status(400).header('content-type', 'text/plain; charset=utf-8').send('Request body incomplete: the connection closed');
      return;
    }
    const d = describeError(err, req?.headers?.['content-type']);
    if (d.errorId) {
      this.logger.error({ msg: 'unhandled error', errorId: d.errorId, err: String((err as Error)?.stack ?? err) });
    }
    if (reply.sent) return;
    setReplyHeaders(reply.status(d.status).header('content-type', d.contentType), d.headers).send(d.body);
  }
}
