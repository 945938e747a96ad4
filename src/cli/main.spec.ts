import { command, CommandMap } from './command';
import { COMMANDS, helpOrError, resolveCommand } from './main';

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

describe('CLI help', () => {
  const noop = async () => 0;
  const commands: CommandMap = {
    'keys create': command('keys create --tenant T --kind K', noop),
    'keys list': command('keys list --tenant T', noop),
    'projections rebuild': command('projections rebuild [name]', noop),
    sign: command('sign --tenant T', noop),
  };
  const help = (line: string) => helpOrError(commands, line === '' ? [] : line.split(' '));
  const keysUsage = 'usage: tapedeck keys <command> [args]\ncommands:\n  tapedeck keys create --tenant T --kind K\n  tapedeck keys list --tenant T\n';

  it.each(['keys --help', 'keys -h'])('lists a group with its usages for %s, exit 0', (line) => {
    expect(help(line)).toEqual({ out: keysUsage, code: 0 });
  });

  it('lists a group named alone, exit 2 as for no command at all', () => {
    expect(help('keys')).toEqual({ out: keysUsage, code: 2 });
    expect(help('')).toMatchObject({ out: expect.stringMatching(/^usage: tapedeck <command>/), code: 2 });
  });

  it.each([
    ['projections rebuild --help', 'projections rebuild [name]'],
    ['projections rebuild recordings -h', 'projections rebuild [name]'],
    ['sign --help', 'sign --tenant T'],
  ])('prints the command usage for %s, exit 0', (line, usage) => {
    expect(help(line)).toEqual({ out: `usage: tapedeck ${usage}\n`, code: 0 });
  });

  it.each(['help', '--help', '-h'])('prints the overview for %s, exit 0', (line) => {
    const r = help(line);
    expect(r).toMatchObject({ code: 0 });
    expect(r?.out).toContain('  keys create\n');
    expect(r?.out).toContain('<group> --help');
  });

  it('names an unknown command on stderr with the nearest usage, exit 2', () => {
    expect(help('keys bogus')).toEqual({ err: `unknown command: keys bogus\n${keysUsage}`, code: 2 });
    expect(help('nope --help')).toMatchObject({ err: expect.stringMatching(/^unknown command: nope --help\nusage: tapedeck <command>/), code: 2 });
  });

  it('lets a known command without --help run', () => {
    expect(help('keys list --tenant acme')).toBeNull();
  });

  it('has a usage for every real command, so every group and command help lists arguments', () => {
    for (const [name, handler] of Object.entries(COMMANDS)) expect(handler.usage).toMatch(new RegExp(`^${name} `));
    for (const group of ['keys', 'signing-keys', 'tenants', 'projections']) {
      const r = helpOrError(COMMANDS, [group, '--help']);
      expect(r?.code).toBe(0);
      expect(r?.out).toMatch(new RegExp(`^usage: tapedeck ${group} <command> \\[args\\]\\ncommands:\\n(  tapedeck ${group} \\S+ .*\\n)+$`));
    }
    expect(helpOrError(COMMANDS, ['signing-keys', '--help'])?.out).toContain('tapedeck signing-keys create --tenant T --key-id K');
  });
});
