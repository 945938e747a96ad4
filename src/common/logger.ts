// The one logger of a process: pino, one JSON object per line ({"level":30,"time":…,"pid":…,
// "hostname":…,"context":…,"msg":…}), below warn on stdout, warn and above on stderr; on a terminal,
// short lines for a person instead (LOG_FORMAT, log-format.ts). Fastify logs
// through it (its request lines only at LOG_LEVEL=debug, see app.factory.ts) and so does Nest, through
// nestjs-pino's Logger: objects are logged as given, an Error as its message (msg) and stack (err).
import type { LoggerService } from '@nestjs/common';
import { Logger as NestPinoLogger, Params, PinoLogger } from 'nestjs-pino';
import pino, { DestinationStream, Logger, LevelWithSilent } from 'pino';
import { isatty } from 'node:tty';
import { humanStreams } from './log-format';
import { redactUrl } from './redact';

export type { Logger };

/** Where the lines go: stdout and stderr unless a test gives its own. */
export interface LogStreams {
  out: DestinationStream;
  err: DestinationStream;
}

const stdStreams = (): LogStreams => ({ out: pino.destination({ dest: 1, sync: true }), err: pino.destination({ dest: 2, sync: true }) });

export function createLogger(level: LevelWithSilent, streams: LogStreams = stdStreams()): Logger {
  return pino(
    {
      level,
      // Never log credentials: a request is its method, id and URL with keys, tokens and signatures removed.
      serializers: { req: (req: { method: string; url: string; id: string }) => ({ method: req.method, url: redactUrl(req.url), id: req.id }) },
    },
    // dedupe: each line to the stream of the highest level it reaches, so warn and above only to stderr.
    pino.multistream(
      [
        { level: 'trace', stream: streams.out },
        { level: 'warn', stream: streams.err },
      ],
      { dedupe: true },
    ),
  );
}

/** json: pino's lines; pretty: for a person (log-format.ts); auto: pretty when stdout is a terminal, else json. */
export type LogFormat = 'json' | 'pretty' | 'auto';

/** The logger of a service process (LOG_LEVEL, LOG_FORMAT). */
export function processLogger(level: LevelWithSilent, format: LogFormat): Logger {
  const human = format === 'pretty' || (format === 'auto' && isatty(1));
  return createLogger(level, human ? humanStreams(level === 'debug') : undefined);
}

/** An Error (or pino's serialized form of one) as its stack text; anything else as given. */
const stackText = (e: unknown) => (e !== null && typeof e === 'object' && typeof (e as Error).stack === 'string' ? (e as Error).stack : e);

/**
 * Nest's LoggerService over `logger`: nestjs-pino's Logger maps Nest's calls (context last, Errors, the
 * exception handlers' message-and-stack) onto pino's. Its request logging (pino-http as Nest
 * middleware) stays off: Fastify already logs every request through the same logger, those Nest never
 * routes included. nestjs-pino keeps one root per process, made from the first call's `logger`.
 */
export function nestLogger(logger: Logger): LoggerService {
  const params: Params = { pinoHttp: { logger, serializers: { err: stackText } }, useExisting: true };
  return new NestPinoLogger(new PinoLogger(params), params);
}
