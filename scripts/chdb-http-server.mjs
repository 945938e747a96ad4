// A current ClickHouse for the tests, where Debian has only 18.16 and there is no Docker: chDB (the
// ClickHouse engine as a library, from npm) behind the part of ClickHouse's HTTP interface that
// @clickhouse/client and the tests use: POST or GET / with `query` and `database` in the URL, the
// statement (or an INSERT's rows) in the body, settings as other URL parameters, /ping. Statements
// run one at a time in one chDB session, so the SQL, the engines and the answers are the current
// server's. Errors answer 500 with ClickHouse's "Code: N. DB::Exception: …" text, as the server does.
//   node scripts/chdb-http-server.mjs --path DIR --port PORT
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({ options: { path: { type: 'string' }, port: { type: 'string', default: '0' } } });
if (!args.path) {
  process.stderr.write('usage: chdb-http-server.mjs --path DIR --port PORT\n');
  process.exit(2);
}
const { Session } = createRequire(import.meta.url)('chdb');
const session = new Session(args.path);
// chDB's own defaults where they differ from a server's: its mutations wait (mutations_sync 1), a
// server's run in the background and ALTER … DELETE answers at once.
const BASELINE = { mutations_sync: '0' };
const exec = (text, format = 'TabSeparated') => session.queryAsync(text, { format });
const quote = (name) => '`' + name.replace(/[`\\]/g, '\\$&') + '`';
const literal = (value) => (/^-?\d+(\.\d+)?$/.test(value) ? value : `'${value.replace(/[\\']/g, '\\$&')}'`);
await exec(
  `SET ${Object.entries(BASELINE)
    .map(([k, v]) => `${k} = ${v}`)
    .join(', ')}`,
);
/** URL parameters of the HTTP interface that are not settings. */
const NOT_SETTINGS = new Set([
  'query',
  'database',
  'default_format',
  'query_id',
  'session_id',
  'session_timeout',
  'session_check',
  'user',
  'password',
  'quota_key',
  'compress',
  'decompress',
  'buffer_size',
  'wait_end_of_query',
  'role',
  'enable_http_compression',
]);
let database = 'default';
let queue = Promise.resolve();

/**
 * Runs one request's statement after the ones before it, in its database and with its settings,
 * which are put back afterwards (one session: `USE` and `SET` are its state).
 */
function run(db, text, format, settings) {
  const result = queue.then(async () => {
    if (db !== database) {
      await exec(`USE ${quote(db)}`);
      database = db;
    }
    if (settings.length === 0) return (await exec(text, format)).bytes();
    await exec(`SET ${settings.map(([k, v]) => `${k} = ${literal(v)}`).join(', ')}`);
    try {
      return (await exec(text, format)).bytes();
    } finally {
      await exec(`SET ${settings.map(([k]) => `${k} = ${BASELINE[k] ?? 'DEFAULT'}`).join(', ')}`);
    }
  });
  queue = result.catch(() => undefined);
  return result;
}

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', async () => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === '/ping') return res.end('Ok.\n');
    const body = Buffer.concat(chunks).toString('utf8');
    const query = url.searchParams.get('query');
    const text = query === null ? body : body ? `${query}\n${body}` : query;
    if (text.trim() === '') return res.writeHead(400).end('Code: 62. DB::Exception: Empty query. (SYNTAX_ERROR)');
    try {
      const settings = [...url.searchParams].filter(([k]) => !NOT_SETTINGS.has(k) && !k.startsWith('param_') && /^\w+$/.test(k));
      const out = await run(url.searchParams.get('database') || 'default', text, url.searchParams.get('default_format') || 'TabSeparated', settings);
      res.writeHead(200, { 'content-type': 'text/plain; charset=UTF-8' }).end(out);
    } catch (e) {
      const message = String(e?.message ?? e).replace(/^Query failed: /, '');
      const code = /Code: (\d+)/.exec(message)?.[1] ?? '1001';
      res.writeHead(500, { 'content-type': 'text/plain; charset=UTF-8', 'x-clickhouse-exception-code': code }).end(message);
    }
  });
});

// As a server stops: at once, keep-alive connections (the service keeps some) cut, not waited for.
const stop = () => {
  server.close();
  server.closeAllConnections();
  session.close();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
server.listen(Number(args.port), '127.0.0.1', () =>
  process.stdout.write(`chdb-http-server listening on ${server.address().port}, ClickHouse ${session.query('SELECT version()', 'TabSeparated').trim()}\n`),
);
