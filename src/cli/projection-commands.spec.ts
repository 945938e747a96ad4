import { UsageError } from './command';
import { parseRebuildArgs, REBUILD_BATCH } from './projection-commands';

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
});
