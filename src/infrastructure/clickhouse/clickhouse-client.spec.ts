// The client library's own log lines go through our logger as one-line JSON at warn, not through
// its default logger (multi-line text on stderr at ERROR). A port nobody listens on makes it log.
// Readiness's probe (`reach`) against a small HTTP server answering as ClickHouse does.
import { Logger, LoggerService } from '@nestjs/common';
import { createServer as createHttpServer, ServerResponse } from 'node:http';
import { createServer } from 'node:net';
import { ClickHouse } from './clickhouse-client';
import { sql } from './sql';

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  await new Promise((r) => server.close(r));
  return port;
}

describe('ClickHouse client logging', () => {
  const lines: { level: string; message: unknown; context?: string }[] = [];
  const capture: LoggerService = {
    log: (message, context) => lines.push({ level: 'log', message, context }),
    warn: (message, context) => lines.push({ level: 'warn', message, context }),
    error: (message, context) => lines.push({ level: 'error', message, context }),
  };

  beforeAll(() => Logger.overrideLogger(capture));
  afterAll(() => Logger.overrideLogger(false));

  it('reports a failed request once, at warn, through the application logger; the default logger stays silent', async () => {
    const consoleError = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    const ch = new ClickHouse({
      CLICKHOUSE_URL: `http://127.0.0.1:${await closedPort()}`,
      CLICKHOUSE_USER: 'default',
      CLICKHOUSE_PASSWORD: 'not-logged',
      CLICKHOUSE_DATABASE: 'd',
    });
    try {
      await expect(ch.rows(sql`SELECT 1`)).rejects.toThrow(/ECONNREFUSED/);
    } finally {
      await ch.close();
    }
    expect(consoleError).not.toHaveBeenCalled();
    consoleError.mockRestore();
    const ours = lines.filter((l) => l.context === 'clickhouse-client');
    expect(ours).toHaveLength(1);
    expect(ours[0]).toMatchObject({ level: 'warn', message: { msg: 'ClickHouse request failed', err: expect.stringMatching(/ECONNREFUSED/) } });
    expect(JSON.stringify(ours)).not.toContain('not-logged');
  });
});

/** A small HTTP server answering as ClickHouse does (`answer`; none: the request hangs, as on a frozen server), and our client of it. */
function fakeClickHouse() {
  const fake = {
    answer: undefined as ((res: ServerResponse) => void) | undefined,
    requests: [] as { url: string; authorization?: string; body: string }[],
    ch: undefined as unknown as ClickHouse,
  };
  const server = createHttpServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      fake.requests.push({ url: req.url!, authorization: req.headers.authorization, body });
      fake.answer?.(res);
    });
  });
  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    fake.ch = new ClickHouse({
      CLICKHOUSE_URL: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
      CLICKHOUSE_USER: 'u',
      CLICKHOUSE_PASSWORD: 'p',
      CLICKHOUSE_DATABASE: 'd',
    });
  });
  afterAll(async () => {
    await fake.ch.close();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  beforeEach(() => (fake.requests.length = 0));
  return fake;
}

const text = (status: number, body: string) => (res: ServerResponse) => res.writeHead(status, { 'content-type': 'text/plain' }).end(body);

describe('ClickHouse reads and inserts (http-transport.ts)', () => {
  const fake = fakeClickHouse();
  const { requests } = fake;

  it('posts the query with its format, the database, the read settings and the credentials; parses every row', async () => {
    fake.answer = text(200, '{"n":"1","s":"a\\nb"}\n{"n":"2","s":""}\n');
    expect(await fake.ch.rows(sql`SELECT n, s FROM t;`)).toEqual([
      { n: '1', s: 'a\nb' },
      { n: '2', s: '' },
    ]);
    const { url, authorization, body } = requests[0];
    expect(body).toBe('SELECT n, s FROM t\nFORMAT JSONEachRow');
    expect(Object.fromEntries(new URL(url, 'http://x').searchParams)).toEqual({
      database: 'd',
      use_uncompressed_cache: '1',
      output_format_json_quote_64bit_integers: '1',
    });
    expect(authorization).toBe('Basic ' + Buffer.from('u:p').toString('base64'));
    fake.answer = text(200, '');
    expect(await fake.ch.rows(sql`SELECT 1 WHERE 0`)).toEqual([]);
  });

  it('reads format JSON whole, with the rows before LIMIT', async () => {
    fake.answer = text(200, JSON.stringify({ data: [{ a: 1 }], rows_before_limit_at_least: 7 }));
    expect(await fake.ch.rowsBeforeLimit(sql`SELECT a FROM t LIMIT 1`)).toEqual({ rows: [{ a: 1 }], beforeLimit: 7 });
    expect(requests[0].body).toBe('SELECT a FROM t LIMIT 1\nFORMAT JSON');
  });

  it("throws the server's error: parsed on current servers, 18.16's text as it is; nothing logged, the caller reports it", async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    fake.answer = text(500, 'Code: 60. DB::Exception: Table d.t does not exist. (UNKNOWN_TABLE) (version 26.3.1.1)\n');
    await expect(fake.ch.rows(sql`SELECT 1 FROM t`)).rejects.toMatchObject({ code: '60', type: 'UNKNOWN_TABLE' });
    fake.answer = text(500, "Code: 60, e.displayText() = DB::Exception: Table d.t doesn't exist., e.what() = DB::Exception\n");
    await expect(fake.ch.rows(sql`SELECT 1 FROM t`)).rejects.toThrow(/^Code: 60, e.displayText\(\) = DB::Exception: Table d.t doesn't exist/);
    expect(warn).not.toHaveBeenCalled();
    warn.mockRestore();
  });

  it('throws an error the server wrote after some rows (its 200 already sent), in either format', async () => {
    fake.answer = text(200, '{"n":"1"}\nCode: 241, e.displayText() = DB::Exception: Memory limit (for query) exceeded\n');
    await expect(fake.ch.rows(sql`SELECT n FROM t`)).rejects.toThrow(/^Code: 241, .*Memory limit/);
    fake.answer = text(200, '{"meta": [], "data": [{"n": 1},\nCode: 241. DB::Exception: Memory limit (for query) exceeded. (MEMORY_LIMIT_EXCEEDED)\n');
    await expect(fake.ch.json(sql`SELECT n FROM t`)).rejects.toMatchObject({ code: '241' });
  });

  it('inserts rows as JSONEachRow under a quoted table name', async () => {
    fake.answer = text(200, '');
    await fake.ch.insert('recording_batches', [
      { a: 'x\ny', b: 1 },
      { a: '', b: 2 },
    ]);
    await fake.ch.insert('recording_batches', []);
    expect(requests).toHaveLength(1);
    expect(requests[0].body).toBe('INSERT INTO `recording_batches` FORMAT JSONEachRow\n{"a":"x\\ny","b":1}\n{"a":"","b":2}\n');
    expect(new URL(requests[0].url, 'http://x').searchParams.get('database')).toBe('d');
  });

  it('gives up when asked to (a frozen server never answers), and keeps serving on a fresh socket after', async () => {
    fake.answer = () => undefined;
    const started = Date.now();
    await expect(fake.ch.rows(sql`SELECT 1`, AbortSignal.timeout(200))).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(2000);
    fake.answer = text(200, '{"x":1}\n');
    expect(await fake.ch.rows(sql`SELECT 1`)).toEqual([{ x: 1 }]);
  });

  it('sends a request again on a fresh socket when the kept-alive one was closed by the server, once', async () => {
    fake.answer = text(200, '{"x":1}\n');
    expect(await fake.ch.rows(sql`SELECT 1`)).toEqual([{ x: 1 }]);
    // The server drops the next request's (reused) socket unanswered, then answers on a new one.
    let dropped = 0;
    fake.answer = (res) => {
      if (dropped++ === 0) return res.socket!.destroy();
      text(200, '{"x":2}\n')(res);
    };
    expect(await fake.ch.rows(sql`SELECT 2`)).toEqual([{ x: 2 }]);
    expect(dropped).toBe(2);
    // Dropped twice (the retry too): the error reaches the caller.
    fake.answer = (res) => res.socket!.destroy();
    await expect(fake.ch.rows(sql`SELECT 3`)).rejects.toThrow(/socket hang up/);
  });

  it('fails a read whose connection closes mid-answer', async () => {
    fake.answer = (res) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '100' });
      res.write('{"x":1}\n');
      setTimeout(() => res.destroy(), 20);
    };
    await expect(fake.ch.rows(sql`SELECT 1`)).rejects.toThrow();
  });
});

describe('ClickHouse reach (readiness)', () => {
  const fake = fakeClickHouse();
  const queries = fake.requests;

  const refuse = (body: string) => text(500, body);

  it('asks a query, which checks the credentials (/ping does not)', async () => {
    fake.answer = (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"1":1}\n');
    expect(await fake.ch.reach()).toEqual({ ok: true });
    expect(queries).toHaveLength(1);
    expect(queries[0].url).not.toMatch(/^\/ping/);
    expect(queries[0].url).toMatch(/[?&]query=SELECT/);
  });

  it('names refused credentials, from the error text of 18.16 and of current servers', async () => {
    fake.answer = refuse('Code: 193, e.displayText() = DB::Exception: Wrong password for user default, e.what() = DB::Exception\n');
    expect(await fake.ch.reach()).toEqual({ ok: false, reason: 'credentials refused (CLICKHOUSE_USER / CLICKHOUSE_PASSWORD)' });
    fake.answer = refuse(
      'Code: 516. DB::Exception: u: Authentication failed: password is incorrect, or there is no user with such name. (AUTHENTICATION_FAILED) (version 26.3.1.1)\n',
    );
    expect(await fake.ch.reach()).toEqual({ ok: false, reason: 'credentials refused (CLICKHOUSE_USER / CLICKHOUSE_PASSWORD)' });
  });

  it('gives other server errors by code only, and a silent server in bounded time', async () => {
    fake.answer = refuse('Code: 241. DB::Exception: Memory limit (total) exceeded at 10.0.3.7. (MEMORY_LIMIT_EXCEEDED)\n');
    expect(await fake.ch.reach()).toEqual({ ok: false, reason: 'query failed (ClickHouse error 241)' });
    fake.answer = undefined;
    const started = Date.now();
    expect(await fake.ch.reach(300)).toEqual({ ok: false, reason: 'unreachable, or no answer within 300 ms' });
    expect(Date.now() - started).toBeLessThan(2000);
  });
});
