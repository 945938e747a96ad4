// Structured JSON logs, one object per line. Nest's Logger calls land here; Fastify's own request
// logs use pino with the same shape. Objects are logged as given, strings become {msg}.
import { LoggerService, LogLevel } from '@nestjs/common';

const ORDER: Record<string, number> = { debug: 20, verbose: 20, log: 30, info: 30, warn: 40, error: 50, fatal: 60 };

export class JsonLogger implements LoggerService {
  private readonly min: number;

  constructor(level: 'debug' | 'info' | 'warn' | 'error' | 'silent' = 'info') {
    this.min = level === 'silent' ? 100 : ORDER[level];
  }

  private write(level: LogLevel | 'info', message: unknown, context?: string, extra?: unknown) {
    if ((ORDER[level] ?? 30) < this.min) return;
    const base = { level: ORDER[level] ?? 30, time: Date.now(), context };
    // An Error's message and stack are not own enumerable properties: spread, it logged as {}.
    const body =
      message instanceof Error
        ? { msg: message.message, err: String(message.stack ?? message) }
        : message && typeof message === 'object'
          ? (message as object)
          : { msg: String(message) };
    const line = JSON.stringify({ ...base, ...body, ...(extra ? { detail: String(extra) } : {}) });
    (ORDER[level] >= 40 ? process.stderr : process.stdout).write(line + '\n');
  }

  log(message: unknown, context?: string) {
    this.write('log', message, context);
  }
  error(message: unknown, stackOrContext?: string, context?: string) {
    this.write('error', message, context ?? stackOrContext, context ? stackOrContext : undefined);
  }
  warn(message: unknown, context?: string) {
    this.write('warn', message, context);
  }
  debug(message: unknown, context?: string) {
    this.write('debug', message, context);
  }
  verbose(message: unknown, context?: string) {
    this.write('verbose', message, context);
  }
  fatal(message: unknown, context?: string) {
    this.write('fatal', message, context);
  }
}

/** Server URLs (comma-separated, as NATS_URL may be) with any user:password@ removed, for messages. */
export function withoutCredentials(urls: string): string {
  return urls.replace(/(^|,\s*)([a-z][a-z0-9+.-]*:\/\/)[^@/,\s]*@/gi, '$1$2[redacted]@');
}

/** Removes credentials from a URL before it is logged: token/signature values and any API key. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  const path = (q < 0 ? url : url.slice(0, q)).split('/').map(withoutKey).join('/');
  if (q < 0) return path;
  const query = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq < 0) return withoutKey(pair);
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      // Compared decoded, as the query parser reads them: `%73ignature=` is a signature too, and so
      // is one inside a value that is a URL itself (the player's eventsUrl).
      if (/^(?:token|signature)$/i.test(decoded(name)) || /(?:^|[?&])(?:token|signature)=/i.test(decoded(value))) return `${name}=[redacted]`;
      return `${withoutKey(name)}=${withoutKey(value)}`;
    });
  return `${path}?${query.join('&')}`;
}

/** A path segment, query name or value without any API key in it; '[redacted]' whole when only its decoded form shows one. */
function withoutKey(part: string): string {
  const plain = part.replace(/(public|secret)_key_svc_[^/?&#]*/gi, '$1_key_svc_[redacted]');
  return /(?:public|secret)_key_svc_(?!\[redacted\])/i.test(decoded(plain)) ? '[redacted]' : plain;
}

function decoded(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
