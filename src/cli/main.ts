// The operator CLI: `node dist/cli/main.js <command> [args]` (`npm run cli -- …`). Commands are a
// map from name to handler; feature files export their part of the map and it is merged here.
import { Logger } from '@nestjs/common';
import { nestLogger, processLogger } from '../common/logger';
import { ConfigError, loadConfig } from '../config/config';
import { withLocalStack } from '../local/local-stack-file';
import { createCliContext } from './cli-context';
import { CommandMap, UsageError } from './command';
import { archiveCommands } from './archive-commands';
import { projectionCommands } from './projection-commands';
import { tenantCommands } from './tenant-commands';
import { tenantLimitsCommand } from './tenant-limits-command';

export const COMMANDS: CommandMap = {
  ...projectionCommands,
  ...archiveCommands,
  ...tenantCommands,
  ...tenantLimitsCommand,
};

/** The longest command name matching the leading words, and the remaining words. */
export function resolveCommand(commands: CommandMap, argv: string[]): { name: string; args: string[] } | null {
  for (let n = Math.min(argv.length, 4); n > 0; n--) {
    const name = argv.slice(0, n).join(' ');
    if (commands[name]) return { name, args: argv.slice(n) };
  }
  return null;
}

const HELP = new Set(['--help', '-h']);
const line = (commands: CommandMap, name: string) => `tapedeck ${commands[name].usage ?? name}`;

function overview(commands: CommandMap): string {
  const names = Object.keys(commands).sort();
  const groups = [...new Set(names.filter((n) => n.includes(' ')).map((n) => n.split(' ')[0]))];
  return (
    `usage: tapedeck <command> [args]\ncommands:\n${names.map((c) => `  ${c}`).join('\n')}\n` +
    `\`tapedeck <command> --help\` shows a command's arguments; \`tapedeck <group> --help\` those of a group's (${groups.join(', ')})\n`
  );
}

function groupUsage(commands: CommandMap, group: string, members: string[]): string {
  return `usage: tapedeck ${group} <command> [args]\ncommands:\n${members.map((n) => `  ${line(commands, n)}`).join('\n')}\n`;
}

/**
 * What to print instead of running a command, or null to run it: the overview (bare, `help`,
 * `--help`), a group's commands (`keys`, `keys --help`), a command's usage (`keys create --help`),
 * or an unknown command. Needs no configuration. Exit code 0 when help was asked for, else 2.
 */
export function helpOrError(commands: CommandMap, argv: string[]): { out?: string; err?: string; code: number } | null {
  if (argv.length === 0) return { out: overview(commands), code: 2 };
  if (argv[0] === 'help' || HELP.has(argv[0])) return { out: overview(commands), code: 0 };
  const found = resolveCommand(commands, argv);
  if (found) return found.args.some((a) => HELP.has(a)) ? { out: `usage: ${line(commands, found.name)}\n`, code: 0 } : null;
  const members = Object.keys(commands)
    .filter((n) => n.startsWith(`${argv[0]} `))
    .sort();
  if (members.length === 0) return { err: `unknown command: ${argv.join(' ')}\n${overview(commands)}`, code: 2 };
  const usage = groupUsage(commands, argv[0], members);
  if (argv.length === 1) return { out: usage, code: 2 };
  if (argv.slice(1).every((a) => HELP.has(a))) return { out: usage, code: 0 };
  return { err: `unknown command: ${argv.join(' ')}\n${usage}`, code: 2 };
}

async function main(argv: string[]): Promise<number> {
  const answer = helpOrError(COMMANDS, argv);
  if (answer) {
    if (answer.out) process.stdout.write(answer.out);
    if (answer.err) process.stderr.write(answer.err);
    return answer.code;
  }
  const found = resolveCommand(COMMANDS, argv)!;
  // Unless NATS_URL says otherwise, the stack `npm start` runs in this checkout.
  const { env, from } = withLocalStack(process.env);
  const cfg = loadConfig(env);
  Logger.overrideLogger(nestLogger(processLogger(cfg.LOG_LEVEL === 'debug' ? 'debug' : 'warn', cfg.LOG_FORMAT)));
  const ctx = createCliContext(cfg, from);
  try {
    return (await COMMANDS[found.name](found.args, ctx)) ?? 0;
  } finally {
    await ctx.close();
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e) => {
      if (e instanceof ConfigError || e instanceof UsageError) {
        process.stderr.write(`${e.message}\n`);
        process.exit(2);
      }
      process.stderr.write(`error: ${String((e as Error)?.message ?? e)}\n`);
      process.exit(1);
    },
  );
}
