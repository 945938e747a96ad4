import type { NatsClient } from '../infrastructure/nats/nats-connection';
import { PROJECTIONS } from '../projections/projections.registry';
import { CliContext, UsageError } from './command';
import { parseRebuildArgs, parseStatusArgs, projectionCommands, REBUILD_BATCH } from './projection-commands';

const REBUILD_USAGE = 'usage: projections rebuild [name] [--batch <1-10000>]';

/** What `run` throws (main prints a UsageError's message and exits with 2). */
function refusal(run: () => unknown): Error {
  try {
    run();
  } catch (e) {
    return e as Error;
  }
  throw new Error('not refused');
}

describe('projections rebuild arguments', () => {
  it('takes an optional projection name and an optional --batch in either spelling', () => {
    expect(parseRebuildArgs([])).toEqual({ name: undefined, batch: REBUILD_BATCH });
    expect(parseRebuildArgs(['recordings'])).toEqual({ name: 'recordings', batch: REBUILD_BATCH });
    expect(parseRebuildArgs(['recordings', '--batch', '5'])).toEqual({ name: 'recordings', batch: 5 });
    expect(parseRebuildArgs(['--batch=10000', 'recordings'])).toEqual({ name: 'recordings', batch: 10_000 });
  });

  it.each([[['--batch']], [['--batch', '0']], [['--batch=10001']], [['--batch', '2e3']], [['--batch', '-5']], [['a', 'b']], [['--json']]])(
    'refuses %j with the usage',
    (args) => {
      expect(() => parseRebuildArgs(args)).toThrow(UsageError);
      expect(() => parseRebuildArgs(args)).toThrow(/usage: projections rebuild \[name\] \[--batch <1-10000>\]/);
    },
  );

  it.each([
    [['--batch'], ''],
    [['--batch', '-5'], '-5'],
    [['recordings', '--batch', '--json'], '--json'],
    [['--batch', '0'], '0'],
  ])('says what --batch takes for %j, also where no value or a dash-leading one follows it', (args, given) => {
    const refused = refusal(() => parseRebuildArgs(args));
    expect(refused).toBeInstanceOf(UsageError);
    expect(refused.message).toBe(`--batch takes a whole number from 1 to 10000, not "${given}"\n${REBUILD_USAGE}`);
  });
});

describe('projections status arguments', () => {
  const known = PROJECTIONS.map((p) => p.name).join(', ');
  const ctx = { nats: async () => ({}) as NatsClient } as CliContext;
  const status = (args: string[]) => projectionCommands['projections status'](args, ctx);

  it('takes an optional projection name and --json', () => {
    expect(parseStatusArgs([])).toEqual({ name: undefined, json: false });
    expect(parseStatusArgs(['recordings', '--json'])).toEqual({ name: 'recordings', json: true });
  });

  it.each([[['--bogus']], [['--bogus', '--json']], [['-x']]])('names an unknown option %j as an unknown projection, with the known ones', async (args) => {
    const refused = await status(args).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(UsageError);
    expect((refused as Error).message).toBe(`unknown projection "${args[0]}"; known: ${known}`);
  });

  it.each([[['recordings', '--bogus']], [['--bogus', 'x']], [['--json=1']]])('refuses %j with the usage', (args) => {
    const refused = refusal(() => parseStatusArgs(args));
    expect(refused).toBeInstanceOf(UsageError);
    expect(refused.message).toBe('usage: projections status [name] [--json]');
  });
});
