// The client library's own log lines go through our logger as one-line JSON at warn, not through
// its default logger (multi-line text on stderr at ERROR). A port nobody listens on makes it log.
import { Logger, LoggerService } from '@nestjs/common';
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
    const ch = new ClickHouse({ CLICKHOUSE_URL: `http://127.0.0.1:${await closedPort()}`, CLICKHOUSE_USER: 'default', CLICKHOUSE_PASSWORD: 'not-logged', CLICKHOUSE_DATABASE: 'd' });
    try {
      await expect(ch.rows(sql`SELECT 1`)).rejects.toThrow(/ECONNREFUSED/);
    } finally {
      await ch.close();
    }
    expect(consoleError).not.toHaveBeenCalled();
    consoleError.mockRestore();
    const ours = lines.filter((l) => l.context === 'clickhouse-client');
    expect(ours).toHaveLength(1);
    expect(ours[0]).toMatchObject({ level: 'warn', message: { msg: 'Query: HTTP request error.', operation: 'Query', err: expect.stringMatching(/ECONNREFUSED/) } });
    expect(JSON.stringify(ours)).not.toContain('not-logged');
  });
});
