import type { FastifyReply } from 'fastify';
import { pipeline, type Readable } from 'node:stream';
import { constants, createGzip } from 'node:zlib';
import { setReplyHeaders } from './reply-headers';

/** Aborts when the response closes before it finished: the client went away, stop reading JetStream. */
export function abortWhenClientGone(reply: FastifyReply): AbortSignal {
  const abort = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) abort.abort();
  });
  return abort.signal;
}

/**
 * Whether an Accept-Encoding header takes gzip: named (or `*`) with a q-value above 0. rrweb events
 * are repetitive JSON (about a tenth compressed), and a browser asks for gzip with every fetch.
 */
export function acceptsGzip(header: string | string[] | undefined): boolean {
  const text = Array.isArray(header) ? header.join(',') : header ?? '';
  let star: boolean | undefined;
  for (const part of text.split(',')) {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => /^\s*q\s*=\s*([0-9.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    const accepted = q === undefined || Number(q) > 0;
    if (coding.trim() === 'gzip' || coding.trim() === 'x-gzip') return accepted;
    if (coding.trim() === '*') star = accepted;
  }
  return star === true;
}

/**
 * Sends a streamed JSON body (never cached: it carries private data), gzip-compressed when the
 * client takes it. Level 1: on the 2-core reference machine the stream is CPU-bound, and level 1
 * already compresses rrweb JSON to about a tenth at a fraction of the default level's cost.
 */
export function sendJsonStream(reply: FastifyReply, body: Readable) {
  setReplyHeaders(reply, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'private, no-store', vary: 'Accept-Encoding' });
  if (!acceptsGzip(reply.request.headers['accept-encoding'])) return reply.send(body);
  const gzip = createGzip({ level: 1, flush: constants.Z_NO_FLUSH });
  // An error of the source (JetStream gone mid-read) ends the compressed response too: the client
  // sees a truncated body, as it did uncompressed.
  pipeline(body, gzip, () => undefined);
  return reply.header('content-encoding', 'gzip').send(gzip);
}
