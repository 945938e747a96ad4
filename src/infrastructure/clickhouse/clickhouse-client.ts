// The ClickHouse adapter: one HTTP client, queries built only with the `sql` helper, inserts as
// JSONEachRow. Works against 18.16 and current servers (no query parameters, no DateTime64).
import { Logger } from '@nestjs/common';
import { ClickHouseLogLevel, createClient, ClickHouseClient, type ErrorLogParams, type Logger as ClientLogger, type WarnLogParams } from '@clickhouse/client';
import type { AppConfig } from '../../config/config';
import { eachRow, HttpTransport, wholeJson } from './http-transport';
import { ident, Sql, sql } from './sql';

// Reads ask for the server's cache of uncompressed blocks: listing and detail reads are short and hit
// the same hot blocks again and again, and decompressing them cost about a third of their time (on
// 18.16 with 100 000 recordings: listing p95 45-73 ms without, 30-42 ms with). Reads of more than
// merge_tree_max_rows_to_use_cache rows (1 Mi by default: statistics over wide windows) bypass the
// cache, so they do not evict it. The server's uncompressed_cache_size bounds its memory (8 GiB in
// the stock config; 0 turns it off and makes this setting a no-op). Known to 18.16 and current servers.
// 64-bit integers come back as JSON strings from every server, as they did by default until
// ClickHouse 25.8 turned quoting off: rows keep their types whatever the server, and numbers above
// 2^53 keep their digits. Known to 18.16 and current servers.
const READ_SETTINGS = { use_uncompressed_cache: 1, output_format_json_quote_64bit_integers: 1 } as const;

/**
 * The client's own log lines (each failed request, socket housekeeping) as our one-line JSON logs, at
 * warn: its default logger writes multi-line text to stderr at ERROR, and the callers handle each
 * failure themselves (retries, 503s, their own error logs). Below warn it says nothing we need.
 */
class ClientLogBridge implements ClientLogger {
  private readonly logger = new Logger('clickhouse-client');
  trace() {}
  debug() {}
  info() {}
  warn(p: WarnLogParams) {
    this.logger.warn(logLine(p));
  }
  error(p: ErrorLogParams) {
    this.logger.warn(logLine(p));
  }
}

function logLine({ module, message, args, err }: WarnLogParams): object {
  return { msg: message, module, err: err ? String(err.message ?? err) : undefined, operation: args?.operation, query_id: args?.query_id };
}

/** ClickHouse's error codes for a user or password it refuses: UNKNOWN_USER, WRONG_PASSWORD, REQUIRED_PASSWORD, AUTHENTICATION_FAILED. */
const CREDENTIAL_ERRORS = new Set(['192', '193', '194', '516']);

/** Connection options every client of ours shares. */
const CLIENT_DEFAULTS = {
  compression: { request: false, response: false },
  log: { LoggerClass: ClientLogBridge, level: ClickHouseLogLevel.WARN },
} as const;

/** ClickHouse's format JSON: the rows, WITH TOTALS' row, and the row count before LIMIT. */
type JsonBody<T> = { data: T[]; totals?: T; rows_before_limit_at_least?: number | string };

/** A query's text without trailing semicolons, for a FORMAT clause after it. */
const statement = (q: Sql) => q.text.trimEnd().replace(/;+$/, '');

/** Gives up on a request with no answer for this long. */
const REQUEST_TIMEOUT_MS = 30_000;

export class ClickHouse {
  readonly client: ClickHouseClient;
  /** Reads and inserts (http-transport.ts): the client's per-request cost, measured, is the reason. */
  private readonly http: HttpTransport;

  constructor(readonly cfg: Pick<AppConfig, 'CLICKHOUSE_URL' | 'CLICKHOUSE_USER' | 'CLICKHOUSE_PASSWORD' | 'CLICKHOUSE_DATABASE'>) {
    this.client = createClient({
      url: cfg.CLICKHOUSE_URL,
      username: cfg.CLICKHOUSE_USER,
      password: cfg.CLICKHOUSE_PASSWORD,
      database: cfg.CLICKHOUSE_DATABASE,
      request_timeout: REQUEST_TIMEOUT_MS,
      // 18.16 rejects settings it does not know; send none by default.
      clickhouse_settings: {},
      ...CLIENT_DEFAULTS,
    });
    this.http = new HttpTransport({
      url: cfg.CLICKHOUSE_URL,
      username: cfg.CLICKHOUSE_USER,
      password: cfg.CLICKHOUSE_PASSWORD,
      database: cfg.CLICKHOUSE_DATABASE,
      timeoutMs: REQUEST_TIMEOUT_MS,
    });
  }

  get database(): string {
    return this.cfg.CLICKHOUSE_DATABASE;
  }

  /** `signal`: gives up on the query (a frozen server never answers) before the transport's own 30 s without an answer. */
  async rows<T>(q: Sql, signal?: AbortSignal): Promise<T[]> {
    return eachRow<T>(await this.http.post(`${statement(q)}\nFORMAT JSONEachRow`, READ_SETTINGS, signal));
  }

  /** A read in format JSON: the rows with what JSONEachRow leaves out (WITH TOTALS' row, rows before LIMIT). */
  async json<T>(q: Sql): Promise<JsonBody<T>> {
    return wholeJson<JsonBody<T>>(await this.http.post(`${statement(q)}\nFORMAT JSON`, READ_SETTINGS));
  }

  /** Rows of a query with LIMIT, and how many rows it had before the LIMIT (`rows_before_limit_at_least`). */
  async rowsBeforeLimit<T>(q: Sql): Promise<{ rows: T[]; beforeLimit: number }> {
    const body = await this.json<T>(q);
    return { rows: body.data, beforeLimit: Number(body.rows_before_limit_at_least ?? body.data.length) };
  }

  async command(q: Sql): Promise<void> {
    await this.client.command({ query: q.text });
  }

  async insert(table: string, values: Record<string, unknown>[]): Promise<void> {
    if (values.length === 0) return;
    let body = `INSERT INTO ${ident(table).text} FORMAT JSONEachRow\n`;
    for (const v of values) body += JSON.stringify(v) + '\n';
    await this.http.post(body, {});
  }

  /** False unless ClickHouse answers a query with our credentials within `timeoutMs` (see `reach`). */
  async ping(timeoutMs = 2000): Promise<boolean> {
    return (await this.reach(timeoutMs)).ok;
  }

  /**
   * Whether ClickHouse answers a query (`SELECT 'ping'`) with our credentials within `timeoutMs`, and
   * if not, why, in words safe to show unauthenticated (no addresses, no server text). A query, not
   * /ping: /ping answers without checking credentials, so a wrong password looked healthy while every
   * query failed. Bounded: a frozen server accepts connections and never replies.
   */
  async reach(timeoutMs = 2000): Promise<{ ok: true } | { ok: false; reason: string }> {
    let error: unknown;
    try {
      const r = await this.client.ping({ select: true, abort_signal: AbortSignal.timeout(timeoutMs) });
      if (r.success) return { ok: true };
      error = r.error;
    } catch (e) {
      error = e;
    }
    // Current servers' errors come parsed (ClickHouseError.code); 18.16's text the client cannot parse.
    const parsed = (error as { code?: unknown })?.code;
    const code = typeof parsed === 'string' && /^\d+$/.test(parsed) ? parsed : /^Code: (\d+)/.exec(String((error as Error)?.message))?.[1];
    if (code) {
      return {
        ok: false,
        reason: CREDENTIAL_ERRORS.has(code) ? 'credentials refused (CLICKHOUSE_USER / CLICKHOUSE_PASSWORD)' : `query failed (ClickHouse error ${code})`,
      };
    }
    return { ok: false, reason: `unreachable, or no answer within ${timeoutMs} ms` };
  }

  /** Creates the configured database (through a client bound to `default`). */
  async ensureDatabase(): Promise<void> {
    const admin = createClient({
      url: this.cfg.CLICKHOUSE_URL,
      username: this.cfg.CLICKHOUSE_USER,
      password: this.cfg.CLICKHOUSE_PASSWORD,
      ...CLIENT_DEFAULTS,
    });
    try {
      await admin.command({ query: sql`CREATE DATABASE IF NOT EXISTS ${ident(this.database)}`.text });
    } finally {
      await admin.close();
    }
  }

  async close(): Promise<void> {
    this.http.close();
    await this.client.close();
  }
}
