import type { FastifyReply } from 'fastify';
import { pipeline, Readable } from 'node:stream';
import { constants, createGzip } from 'node:zlib';
import { qualityList } from './quality-list';
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
  const items = qualityList(header);
  const named = items.find((i) => i.value === 'gzip' || i.value === 'x-gzip') ?? items.find((i) => i.value === '*');
  return named !== undefined && named.q > 0;
}

/**
 * Sends a streamed JSON body (never cached: it carries private data), gzip-compressed when the
 * client takes it. Level 1: on the 2-core reference machine the stream is CPU-bound, and level 1
 * already compresses rrweb JSON to about a tenth at a fraction of the default level's cost.
 */
export async function sendJsonStream(reply: FastifyReply, source: Readable) {
  const body = await withFirstChunk(source);
  setReplyHeaders(reply, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'private, no-store', vary: 'Accept-Encoding' });
  if (!acceptsGzip(reply.request.headers['accept-encoding'])) return reply.send(body);
  const gzip = createGzip({ level: 1, flush: constants.Z_NO_FLUSH });
  // An error of the source (JetStream gone mid-read) ends the compressed response too: the client
  // sees a truncated body, as it did uncompressed.
  pipeline(body, gzip, () => undefined);
  return reply.header('content-encoding', 'gzip').send(gzip);
}

/**
 * The stream with its first chunk already read. A read that fails before its first byte (the
 * recording deleted meanwhile, JetStream failing at the start) rejects here, before any header is
 * set, and is answered with its own status and a plain body; one failing later can only cut the
 * body short. A small recording's body is its first chunk, so its read either succeeds or fails whole.
 */
async function withFirstChunk(source: Readable): Promise<Readable> {
  const it = source[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const first = await it.next();
  async function* all() {
    try {
      if (first.done) return;
      yield first.value;
      for (let r = await it.next(); !r.done; r = await it.next()) yield r.value;
    } finally {
      await it.return?.();
    }
  }
  return Readable.from(all(), { objectMode: false, highWaterMark: source.readableHighWaterMark });
}
