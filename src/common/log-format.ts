// Log lines for a person at a terminal: `03:41:07 INFO  migrations  applied migration version=3`,
// one short line per record, instead of pino's JSON (which stays the format everywhere else: files,
// collectors, CI). Nest's own start-up chatter (a line per module and per route, about ninety) is
// left out below warn unless LOG_LEVEL=debug.
import { isatty } from 'node:tty';
import pino, { DestinationStream } from 'pino';
import type { LogStreams } from './logger';

/** Nest's start-up contexts: which modules loaded and which routes it mapped. */
const FRAMEWORK_CONTEXTS = new Set(['NestFactory', 'InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestApplication']);
const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
const COLORS: Record<number, string> = { 20: '90', 30: '32', 40: '33', 50: '31', 60: '35' };
const OWN_FIELDS = new Set(['level', 'time', 'pid', 'hostname', 'context', 'msg', 'err']);

export interface HumanFormat {
  /** Nest's module and route lines too (LOG_LEVEL=debug). */
  framework: boolean;
  /** ANSI colours (the stream is a terminal). */
  color: boolean;
}

const clock = (ms: number) => new Date(ms).toTimeString().slice(0, 8);
const plain = /^[^\s"=]{1,200}$/;
const field = (k: string, v: unknown) => `${k}=${typeof v === 'string' && plain.test(v) ? v : JSON.stringify(v)}`;

/** One pino JSON line as a human line (with a trailing newline), or '' to leave it out. */
export function humanLine(json: string, o: HumanFormat): string {
  let rec: Record<string, unknown>;
  try {
    rec = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json; // not pino's: as it came
  }
  const level = typeof rec.level === 'number' ? rec.level : 30;
  const context = typeof rec.context === 'string' ? rec.context : '';
  if (!o.framework && level < 40 && FRAMEWORK_CONTEXTS.has(context)) return '';
  const paint = (code: string | undefined, s: string) => (o.color && code ? `\u001b[${code}m${s}\u001b[0m` : s);
  const name = (LEVELS[level] ?? String(level)).padEnd(5);
  const fields = Object.entries(rec)
    .filter(([k, v]) => !OWN_FIELDS.has(k) && v !== undefined)
    .map(([k, v]) => field(k, v));
  const head = [
    paint('2', clock(typeof rec.time === 'number' ? rec.time : Date.now())),
    paint(COLORS[level], name),
    context && paint('36', context),
    rec.msg,
    ...fields,
  ];
  // An error's stack reads best as it was printed: on the lines below, indented.
  const err = rec.err === undefined ? '' : `\n  ${String(typeof rec.err === 'string' ? rec.err : JSON.stringify(rec.err)).replace(/\n/g, '\n  ')}`;
  return `${head.filter((p) => p !== '' && p !== undefined).join(' ')}${err}\n`;
}

/** Writes to file descriptor `fd` synchronously, as the JSON lines are: nothing is lost at process.exit. */
function human(fd: number, framework: boolean): DestinationStream {
  const dest = pino.destination({ dest: fd, sync: true });
  const format = { framework, color: isatty(fd) };
  return {
    write: (line: string) => {
      const out = humanLine(line, format);
      if (out) dest.write(out);
    },
  };
}

/** stdout and stderr written for a person; pino's levels still split them (below warn on stdout). */
export const humanStreams = (framework: boolean): LogStreams => ({ out: human(1, framework), err: human(2, framework) });
