// The operator CLI: `node dist/cli/main.js <command> [args]` (`npm run cli -- …`). Commands are a
// map from name to handler; feature files export their part of the map and it is merged here.
import { Logger } from '@nestjs/common';
import { JsonLogger } from '../common/json-logger';
import { ConfigError, loadConfig } from '../config/config';
import { createCliContext } from './cli-context';
import { CommandMap, UsageError } from './command';
import { projectionCommands } from './projection-commands';
import { tenantCommands } from './tenant-commands';

export const COMMANDS: CommandMap = {
  ...projectionCommands,
  ...tenantCommands,
};

/** The longest command name matching the leading words, and the remaining words. */
export function resolveCommand(commands: CommandMap, argv: string[]): { name: string; args: string[] } | null {
  for (let n = Math.min(argv.length, 4); n > 0; n--) {
    const name = argv.slice(0, n).join(' ');
    if (commands[name]) return { name, args: argv.slice(n) };
  }
  return null;
}

const usage = () => `usage: tapedeck <command> [args]\ncommands:\n${Object.keys(COMMANDS).sort().map((c) => `  ${c}`).join('\n')}\n`;

async function main(argv: string[]): Promise<number> {
  if (argv.length === 0 || argv[0] === 'help' || argv[0] === '--help' || argv[0] === '-h') {
    process.stdout.write(usage());
    return argv.length === 0 ? 2 : 0;
  }
  const found = resolveCommand(COMMANDS, argv);
  if (!found) {
    process.stderr.write(`unknown command: ${argv.join(' ')}\n${usage()}`);
    return 2;
  }
  const cfg = loadConfig();
  Logger.overrideLogger(new JsonLogger(cfg.LOG_LEVEL === 'debug' ? 'debug' : 'warn'));
  const ctx = createCliContext(cfg);
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
