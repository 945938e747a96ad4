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
    expect(ours[0]).toMatchObject({
      level: 'warn',
      message: { msg: 'Query: HTTP request error.', operation: 'Query', err: expect.stringMatching(/ECONNREFUSED/) },
    });
    expect(JSON.stringify(ours)).not.toContain('not-logged');
  });
});

describe('ClickHouse reach (readiness)', () => {
  let answer: ((res: ServerResponse) => void) | undefined;
  const queries: string[] = [];
  const server = createHttpServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      queries.push(`${req.url} ${body}`);
      answer?.(res); // none: the request hangs, as on a frozen server
    });
  });
  let ch: ClickHouse;

  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    ch = new ClickHouse({
      CLICKHOUSE_URL: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
      CLICKHOUSE_USER: 'u',
      CLICKHOUSE_PASSWORD: 'p',
      CLICKHOUSE_DATABASE: 'd',
    });
  });
  afterAll(async () => {
    await ch.close();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  beforeEach(() => (queries.length = 0));

  const refuse = (text: string) => (res: ServerResponse) => res.writeHead(500, { 'content-type': 'text/plain' }).end(text);

  it('asks a query, which checks the credentials (/ping does not)', async () => {
    answer = (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"1":1}\n');
    expect(await ch.reach()).toEqual({ ok: true });
    expect(queries).toHaveLength(1);
    expect(queries[0]).not.toMatch(/^\/ping/);
    expect(queries[0]).toMatch(/[?&]query=SELECT/);
  });

  it('names refused credentials, from the error text of 18.16 and of current servers', async () => {
    answer = refuse('Code: 193, e.displayText() = DB::Exception: Wrong password for user default, e.what() = DB::Exception\n');
    expect(await ch.reach()).toEqual({ ok: false, reason: 'credentials refused (CLICKHOUSE_USER / CLICKHOUSE_PASSWORD)' });
    answer = refuse(
      'Code: 516. DB::Exception: u: Authentication failed: password is incorrect, or there is no user with such name. (AUTHENTICATION_FAILED) (version 26.3.1.1)\n',
    );
    expect(await ch.reach()).toEqual({ ok: false, reason: 'credentials refused (CLICKHOUSE_USER / CLICKHOUSE_PASSWORD)' });
  });

  it('gives other server errors by code only, and a silent server in bounded time', async () => {
    answer = refuse('Code: 241. DB::Exception: Memory limit (total) exceeded at 10.0.3.7. (MEMORY_LIMIT_EXCEEDED)\n');
    expect(await ch.reach()).toEqual({ ok: false, reason: 'query failed (ClickHouse error 241)' });
    answer = undefined;
    const started = Date.now();
    expect(await ch.reach(300)).toEqual({ ok: false, reason: 'unreachable, or no answer within 300 ms' });
    expect(Date.now() - started).toBeLessThan(2000);
  });
});
