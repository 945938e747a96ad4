import type { FastifyReply } from 'fastify';
import type { Readable } from 'node:stream';

/** Aborts when the response closes before it finished: the client went away, stop reading JetStream. */
export function abortWhenClientGone(reply: FastifyReply): AbortSignal {
  const abort = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) abort.abort();
  });
  return abort.signal;
}

/** Sends a streamed JSON body (never cached: it carries private data). */
export function sendJsonStream(reply: FastifyReply, body: Readable) {
  return reply.header('content-type', 'application/json; charset=utf-8').header('cache-control', 'private, no-store').send(body);
}
