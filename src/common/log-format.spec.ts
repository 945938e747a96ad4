import { humanLine } from './log-format';

const at = new Date(2026, 10, 28, 3, 41, 7).getTime(); // local time, as the line shows it
const line = (rec: Record<string, unknown>) => JSON.stringify({ level: 30, time: at, pid: 1, hostname: 'h', ...rec }) + '\n';
const plain = { framework: false, color: false };

describe('humanLine', () => {
  it('writes time, level, context, message and the other fields, one line', () => {
    expect(humanLine(line({ context: 'migrations', msg: 'applied migration', version: 3, name: '003 tenant limits' }), plain)).toBe(
      '03:41:07 INFO  migrations applied migration version=3 name="003 tenant limits"\n',
    );
    expect(humanLine(line({ level: 40, msg: 'cannot reach NATS; retrying', servers: 'nats://127.0.0.1:4222', detail: { a: 1 } }), plain)).toBe(
      '03:41:07 WARN  cannot reach NATS; retrying servers=nats://127.0.0.1:4222 detail={"a":1}\n',
    );
  });

  it("puts an error's stack on the lines below, indented", () => {
    expect(humanLine(line({ level: 50, context: 'http', msg: 'boom', err: 'Error: boom\n    at f (x.js:1:1)' }), plain)).toBe(
      '03:41:07 ERROR http boom\n  Error: boom\n      at f (x.js:1:1)\n',
    );
  });

  it("leaves out Nest's module and route lines below warn, unless asked for them", () => {
    const route = line({ context: 'RouterExplorer', msg: 'Mapped {/recordings, GET} route' });
    expect(humanLine(route, plain)).toBe('');
    expect(humanLine(route, { ...plain, framework: true })).toMatch(/RouterExplorer Mapped/);
    expect(humanLine(line({ level: 50, context: 'NestApplication', msg: 'failed' }), plain)).toMatch(/ERROR NestApplication failed/);
  });

  it('colours level and context on a terminal only', () => {
    expect(humanLine(line({ context: 'boot', msg: 'ready' }), { ...plain, color: true })).toBe(
      '\u001b[2m03:41:07\u001b[0m \u001b[32mINFO \u001b[0m \u001b[36mboot\u001b[0m ready\n',
    );
  });

  it('passes what is not JSON through', () => {
    expect(humanLine('not json\n', plain)).toBe('not json\n');
  });
});
