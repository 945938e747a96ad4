// The hot paths to ClickHouse (every read, the projectors' inserts) as plain POSTs over one
// keep-alive agent of node:http(s). @clickhouse/client waits a timer tick before every request (a
// setTimeout(0), clickhouse-js PR #296) and pipes body and response through stream pipelines: on this
// project's 2-core machine ~2.4 ms and ~1.2 ms of CPU per query, against ~0.6 ms and ~0.3 ms for the
// same POST here (bench/README.md, Listing: "the ClickHouse transport"). The client stays for what is rare
// (commands, migrations, the readiness probe). What the protocol needs is small: the query (and an
// insert's rows) as the body, settings and database as URL parameters, Basic auth, and an error as a
// non-200 status with the server's text, or, once the rows have started, as that text after them.
import { Logger } from '@nestjs/common';
import { parseError } from '@clickhouse/client';
import { Agent as HttpAgent, IncomingMessage, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

export interface TransportOptions {
  url: string;
  username: string;
  password: string;
  database: string;
  /** Gives up on a request with no answer for this long (a frozen server never answers). */
  timeoutMs: number;
}

export type Settings = Readonly<Record<string, string | number>>;

/** What a kept-alive socket the server closed meanwhile answers a new request with. */
const STALE_SOCKET = new Set(['ECONNRESET', 'EPIPE']);

export class HttpTransport {
  private readonly logger = new Logger('clickhouse-client');
  private readonly https: boolean;
  private readonly agent: HttpAgent;
  private readonly authorization: string;

  constructor(private readonly o: TransportOptions) {
    this.https = new URL(o.url).protocol === 'https:';
    // Sockets idle for 2 s are closed by us, before the server's keep_alive_timeout (3 s by default) can.
    const agentOptions = { keepAlive: true, timeout: 2000, scheduling: 'lifo' as const };
    this.agent = this.https ? new HttpsAgent(agentOptions) : new HttpAgent(agentOptions);
    this.authorization = 'Basic ' + Buffer.from(`${o.username}:${o.password}`).toString('base64');
  }

  /** The body of a query's answer, whole; a ClickHouse error (parsed where the server's text allows) or a transport error otherwise. */
  async post(body: string, settings: Settings, signal?: AbortSignal): Promise<string> {
    const url = new URL(this.o.url);
    url.searchParams.set('database', this.o.database);
    for (const [k, v] of Object.entries(settings)) url.searchParams.set(k, String(v));
    let text: string;
    let status: number | undefined;
    try {
      const res = await this.send(url, body, signal);
      status = res.statusCode;
      text = await readText(res, signal);
    } catch (e) {
      // Transport failures are logged here (the callers answer 503); an abort is the caller's own doing.
      if (!signal?.aborted) this.logger.warn({ msg: 'ClickHouse request failed', err: String((e as Error)?.message ?? e) });
      throw e;
    }
    // The server's error: the caller's to report.
    if (status !== 200) throw parseError(text.trim() || `HTTP ${status}`);
    return text;
  }

  close(): void {
    this.agent.destroy();
  }

  /**
   * One request; sent once more on a fresh socket when a kept-alive one turns out closed before any
   * answer (the server closed it as we reused it: Node's `reusedSocket` pattern). Nothing was answered,
   * so nothing was done twice that matters: reads are reads, and projected rows are versioned.
   */
  private async send(url: URL, body: string, signal?: AbortSignal): Promise<IncomingMessage> {
    try {
      return await this.sendOnce(url, body, signal);
    } catch (e) {
      if (!(e as { reused?: boolean }).reused || signal?.aborted || !STALE_SOCKET.has((e as NodeJS.ErrnoException).code ?? '')) throw e;
      return this.sendOnce(url, body, signal);
    }
  }

  private sendOnce(url: URL, body: string, signal?: AbortSignal): Promise<IncomingMessage> {
    return new Promise((resolve, reject) => {
      const req = (this.https ? httpsRequest : httpRequest)(url, {
        method: 'POST',
        agent: this.agent,
        headers: { authorization: this.authorization, 'content-length': Buffer.byteLength(body) },
        signal,
        timeout: this.o.timeoutMs,
      });
      req.once('response', resolve);
      req.once('error', (e) => reject(Object.assign(e, { reused: req.reusedSocket })));
      req.once('timeout', () => req.destroy(new Error(`ClickHouse did not answer within ${this.o.timeoutMs} ms`)));
      req.end(body);
    });
  }
}

function readText(res: IncomingMessage, signal?: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const abort = () => res.destroy(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
    signal?.addEventListener('abort', abort, { once: true });
    res.on('data', (c: Buffer) => chunks.push(c));
    res.once('error', reject);
    res.once('close', () => {
      signal?.removeEventListener('abort', abort);
      if (res.complete) resolve(Buffer.concat(chunks).toString('utf8'));
      else reject(new Error('ClickHouse closed the connection before the end of its answer'));
    });
  });
}

/** JSONEachRow's rows; an exception the server wrote after some rows (its status already sent) is thrown. */
export function eachRow<T>(text: string): T[] {
  const rows: T[] = [];
  let at = 0;
  while (at < text.length) {
    let end = text.indexOf('\n', at);
    if (end < 0) end = text.length;
    if (end > at) {
      const line = text.slice(at, end);
      if (line.charCodeAt(0) !== 123 /* { */) throw parseError(text.slice(at).trim());
      rows.push(JSON.parse(line) as T);
    }
    at = end + 1;
  }
  return rows;
}

/** Format JSON's body; an exception written after it began is thrown. */
export function wholeJson<T>(text: string): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    const at = text.search(/Code: \d+/);
    throw at >= 0 ? parseError(text.slice(at).trim()) : new Error('ClickHouse answered with an incomplete JSON body');
  }
}
