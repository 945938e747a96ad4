import { createLogger, LogStreams, nestLogger } from './logger';

function capture(): LogStreams & { lines: { out: Record<string, unknown>[]; err: Record<string, unknown>[] } } {
  const lines = { out: [] as Record<string, unknown>[], err: [] as Record<string, unknown>[] };
  return { lines, out: { write: (l: string) => void lines.out.push(JSON.parse(l)) }, err: { write: (l: string) => void lines.err.push(JSON.parse(l)) } };
}

// nestjs-pino keeps one root logger per process: the Nest logger of these specs is made once.
const streams = capture();
const nest = nestLogger(createLogger('info', streams));

beforeEach(() => {
  streams.lines.out.length = 0;
  streams.lines.err.length = 0;
});

describe('the Nest logger', () => {
  it('logs an Error by its message and stack (Nest hands start-up failures over as Errors)', () => {
    nest.error(new Error('ClickHouse URL protocol must be either http or https'));
    const [logged] = streams.lines.err;
    expect(logged).toMatchObject({ level: 50, msg: 'ClickHouse URL protocol must be either http or https' });
    expect(logged.err).toMatch(/^Error: ClickHouse URL protocol/);
  });

  it("logs an exception handler's message, stack and context alike", () => {
    nest.error('Nest could not resolve a dependency', 'Error: Nest could not resolve a dependency\n    at Injector (injector.js:1:1)', 'ExceptionHandler');
    expect(streams.lines.err).toEqual([
      expect.objectContaining({
        level: 50,
        context: 'ExceptionHandler',
        msg: 'Nest could not resolve a dependency',
        err: expect.stringMatching(/^Error: Nest could not[\s\S]*at Injector/),
      }),
    ]);
  });

  it('logs objects as given with their context, below warn on stdout and from warn on stderr', () => {
    nest.log({ msg: 'retention sweep', tenants: 2, deleted: 0 }, 'retention');
    nest.warn({ msg: 'publish failed', err: 'timeout' }, 'event-store');
    nest.log('a plain message');
    expect(streams.lines.out).toEqual([
      expect.objectContaining({ level: 30, time: expect.any(Number), context: 'retention', msg: 'retention sweep', tenants: 2, deleted: 0 }),
      expect.objectContaining({ level: 30, msg: 'a plain message' }),
    ]);
    expect(streams.lines.err).toEqual([expect.objectContaining({ level: 40, context: 'event-store', msg: 'publish failed', err: 'timeout' })]);
  });

  it('leaves out what is below its level', () => {
    nest.debug?.({ msg: 'client went away mid-request' }, 'http');
    expect([...streams.lines.out, ...streams.lines.err]).toEqual([]);
  });
});

describe('the root logger', () => {
  it.each(['debug', 'info', 'warn', 'error'] as const)('at %s writes that level and above', (level) => {
    const s = capture();
    const logger = createLogger(level, s);
    for (const l of ['debug', 'info', 'warn', 'error'] as const) logger[l](l);
    const written = [...s.lines.out, ...s.lines.err].map((l) => l.msg);
    expect(written).toEqual(['debug', 'info', 'warn', 'error'].slice(['debug', 'info', 'warn', 'error'].indexOf(level)));
  });

  it('at silent writes nothing', () => {
    const s = capture();
    createLogger('silent', s).fatal('nothing');
    expect([...s.lines.out, ...s.lines.err]).toEqual([]);
  });

  it("logs a request (Fastify's request lines) without its credentials", () => {
    const s = capture();
    createLogger('info', s).info(
      { req: { method: 'GET', url: '/recordings/1/events?tenantId=t&signature=abc123', id: 'r1', headers: { authorization: 'Bearer secret_key_svc_x' } } },
      'incoming request',
    );
    expect(s.lines.out).toEqual([
      expect.objectContaining({ msg: 'incoming request', req: { method: 'GET', url: '/recordings/1/events?tenantId=t&signature=[redacted]', id: 'r1' } }),
    ]);
  });
});
