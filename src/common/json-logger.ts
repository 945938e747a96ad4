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
    const body = message && typeof message === 'object' ? (message as object) : { msg: String(message) };
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

/** Removes credentials from a URL before it is logged: token/signature values and any API key. */
/** Server URLs (comma-separated, as NATS_URL may be) with any user:password@ removed, for messages. */
export function withoutCredentials(urls: string): string {
  return urls.replace(/(^|,\s*)([a-z][a-z0-9+.-]*:\/\/)[^@/,\s]*@/gi, '$1$2[redacted]@');
}

export function redactUrl(url: string): string {
  return url
    .replace(/([?&](?:token|signature)=)[^&]*/gi, '$1[redacted]')
    .replace(/(public|secret)_key_svc_[^/?&#]*/gi, '$1_key_svc_[redacted]');
}
