import type { CommandMap } from './command';
import { resolveCommand } from './main';

describe('CLI dispatcher', () => {
  const noop = async () => 0;
  const commands: CommandMap = { 'projections rebuild': noop, 'projections status': noop, sign: noop };

  it('picks the longest command name and passes the remaining words', () => {
    expect(resolveCommand(commands, ['projections', 'rebuild', 'recordings'])).toEqual({ name: 'projections rebuild', args: ['recordings'] });
    expect(resolveCommand(commands, ['projections', 'status', '--json'])).toEqual({ name: 'projections status', args: ['--json'] });
    expect(resolveCommand(commands, ['sign', 'x'])).toEqual({ name: 'sign', args: ['x'] });
  });

  it('finds nothing for unknown or partial names', () => {
    expect(resolveCommand(commands, ['projections'])).toBeNull();
    expect(resolveCommand(commands, ['nope'])).toBeNull();
  });
});
