import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { AppConfig } from '../config/config';
import type { ClickHouse } from '../infrastructure/clickhouse/clickhouse-client';
import type { NatsClient } from '../infrastructure/nats/nats-connection';

/** What a command gets: configuration, lazily opened clients (closed by main), output streams. */
export interface CliContext {
  cfg: AppConfig;
  nats(): Promise<NatsClient>;
  clickhouse(): ClickHouse;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WriteStream;
}

/**
 * Runs with the words after the command name; resolves to the exit code (default 0). `usage` is the
 * command's synopsis after "tapedeck ", printed by `--help` without loading configuration.
 */
export interface CommandHandler {
  (args: string[], ctx: CliContext): Promise<number | void>;
  usage?: string;
}

/** A handler with its usage attached. */
export function command(usage: string, run: (args: string[], ctx: CliContext) => Promise<number | void>): CommandHandler {
  return Object.assign((args: string[], ctx: CliContext) => run(args, ctx), { usage });
}

/** Command name (one or more words, e.g. "projections rebuild") → handler. */
export type CommandMap = Record<string, CommandHandler>;

/** Thrown for bad arguments: main prints the message and exits with 2. */
export class UsageError extends Error {}

/** A command's options, in node:util parseArgs' terms. */
export type ArgOptions = NonNullable<ParseArgsConfig['options']>;
export type ArgValues = Record<string, string | boolean | string[] | undefined>;

const HELP = { type: 'boolean', short: 'h' } as const;
const withHelp = (options: ArgOptions): ArgOptions => ({ ...options, help: HELP });

/** The words after a command's name as parseArgs reads them when not strict, for the lenient readings below. */
const looseTokens = (argv: readonly string[], options: ArgOptions) =>
  parseArgs({ args: [...argv], options: withHelp(options), allowPositionals: true, strict: false, tokens: true }).tokens;

/**
 * The words after a command's name, through node:util parseArgs: strict (an unknown option or a
 * missing value is a UsageError with parseArgs' message), positionals allowed, and `--help`/`-h`
 * known to every command.
 */
export function parseCommandArgs(argv: readonly string[], options: ArgOptions): { values: ArgValues; positionals: string[] } {
  try {
    return parseArgs({ args: [...argv], options: { ...options, help: HELP }, allowPositionals: true, strict: true });
  } catch (e) {
    const code = (e as { code?: unknown } | null)?.code;
    if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')) throw new UsageError((e as Error).message);
    throw e;
  }
}

/**
 * Every value given to the string option `name`, read leniently: the word after it even when it starts
 * with a dash, '' when none follows. Strict parsing refuses those two cases without naming the value;
 * a command checks these first to say what was wrong with it.
 */
export function givenValues(argv: readonly string[], options: ArgOptions, name: string): string[] {
  return looseTokens(argv, options).flatMap((t) => (t.kind === 'option' && t.name === name ? [t.value ?? ''] : []));
}

/** Indices of the words that hold an option neither `options` nor --help/-h know (in order, each once). */
export function unknownOptionWords(argv: readonly string[], options: ArgOptions): number[] {
  const known = withHelp(options);
  return [...new Set(looseTokens(argv, options).flatMap((t) => (t.kind === 'option' && !Object.hasOwn(known, t.name) ? [t.index] : [])))];
}
