// Bounds on the console and network plugin events of the browser recorder (no DOM needed).
import fc from 'fast-check';
import { CONSOLE_LIMITS, ConsoleLimiter, MinuteBudget, NETWORK_LIMITS, NetworkLimiter, boundArgument, boundLog } from './browser/capture-bounds';

const log = (level: string, ...args: unknown[]) => ({
  level,
  trace: ['a (x.js:1:1)', 'b (x.js:2:2)', 'c (x.js:3:3)'],
  payload: args.map((a) => JSON.stringify(a)),
});

describe('boundArgument', () => {
  it('keeps every argument valid JSON within the limit (plus the ellipsis and quotes)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.integer({ min: 1, max: 50 }), (value, max) => {
        const json = JSON.stringify(value);
        const bounded = boundArgument(json, max);
        const parsed: unknown = JSON.parse(bounded);
        if (json.length <= max) expect(bounded).toBe(json);
        else expect(typeof parsed === 'string' && parsed.length <= max + 1).toBe(true);
      }),
    );
  });

  it('cuts a long string to its first characters, and a long object to the start of its JSON, as a string', () => {
    expect(JSON.parse(boundArgument(JSON.stringify('x'.repeat(5000)), 10))).toBe('xxxxxxxxxx…');
    expect(JSON.parse(boundArgument(JSON.stringify({ a: 'y'.repeat(100) }), 8))).toBe('{"a":"yy…');
  });
});

describe('boundLog', () => {
  it('keeps at most the configured arguments, each within the configured length, and says how many were left out', () => {
    const args = Array.from({ length: CONSOLE_LIMITS.arguments + 3 }, (_, i) => `${i}:${'z'.repeat(CONSOLE_LIMITS.argumentLength)}`);
    const bounded = boundLog(log('log', ...args));
    expect(bounded.payload).toHaveLength(CONSOLE_LIMITS.arguments + 1);
    for (const arg of bounded.payload.slice(0, -1)) expect((JSON.parse(arg) as string).length).toBe(CONSOLE_LIMITS.argumentLength + 1);
    expect(JSON.parse(bounded.payload[CONSOLE_LIMITS.arguments])).toBe('[tapedeck] 3 more arguments not recorded');
  });

  it('keeps the stack of errors (cut to the frame limit) and only the call site of other levels', () => {
    const deep = { ...log('error', 'boom'), trace: Array.from({ length: 50 }, (_, i) => `f${i} (${'u'.repeat(400)}.js:1:1)`) };
    const error = boundLog(deep);
    expect(error.trace).toHaveLength(CONSOLE_LIMITS.stackFrames);
    for (const frame of error.trace) expect(frame.length).toBe(CONSOLE_LIMITS.frameLength + 1);
    expect(boundLog(log('log', 'hello')).trace).toEqual(['a (x.js:1:1)']);
    expect(boundLog(log('trace', 'here')).trace).toHaveLength(3);
  });

  it("drops the trace of a rejection with a non-Error, which is the plugin's own handler", () => {
    expect(boundLog({ level: 'error', trace: ['handler (recorder.js:1:1)'], payload: ['"Uncaught (in promise)"', '"no"'] }).trace).toEqual([]);
  });

  it('leaves a small message as it is', () => {
    const small = log('warn', 'careful', { n: 1 }, [1, 2]);
    expect(boundLog(small)).toEqual({ ...small, trace: [small.trace[0]] });
  });
});

describe('MinuteBudget', () => {
  it('grants up to its count per fixed minute and reports the first refusal of each minute once', () => {
    const b = new MinuteBudget(3);
    expect(b.take(0, 2)).toEqual({ granted: 2, firstRefusal: false });
    expect(b.take(10, 2)).toEqual({ granted: 1, firstRefusal: true });
    expect(b.take(20)).toEqual({ granted: 0, firstRefusal: false });
    expect(b.take(60_000)).toEqual({ granted: 1, firstRefusal: false });
    // A clock that went back starts a new window rather than refusing for a long time.
    expect(b.take(5)).toEqual({ granted: 1, firstRefusal: false });
  });
});

describe('ConsoleLimiter', () => {
  it('records errors on a budget of their own, and replaces the first refused event of a minute by one warning', () => {
    const limiter = new ConsoleLimiter();
    const logs = Array.from({ length: CONSOLE_LIMITS.othersPerMinute + 20 }, (_, i) => limiter.admit(log('log', i), 1000 + i));
    const recorded = logs.filter((e) => e !== undefined);
    expect(recorded).toHaveLength(CONSOLE_LIMITS.othersPerMinute + 1);
    expect(recorded[CONSOLE_LIMITS.othersPerMinute]).toEqual({
      level: 'warn',
      trace: [],
      payload: [JSON.stringify(`[tapedeck] over ${CONSOLE_LIMITS.othersPerMinute} console messages in a minute: the rest of this minute's are not recorded`)],
    });
    // The flood of logs leaves the errors' budget alone.
    const errors = Array.from({ length: CONSOLE_LIMITS.errorsPerMinute + 5 }, (_, i) => limiter.admit(log('error', `e${i}`), 2000 + i));
    expect(errors.filter((e) => e?.level === 'error')).toHaveLength(CONSOLE_LIMITS.errorsPerMinute);
    expect(errors.filter((e) => e?.level === 'warn')).toHaveLength(1);
    // A minute later both budgets are full again.
    expect(limiter.admit(log('log', 'later'), 61_000)?.payload).toEqual(['"later"']);
    expect(limiter.admit(log('error', 'later'), 62_000)?.level).toBe('error');
  });

  it("does not record the plugin's complaint about an uncaught non-Error", () => {
    expect(new ConsoleLimiter().admit(log('warn', '[console-record-plugin]: Failed to parse error object:', 'text'), 0)).toBeUndefined();
  });
});

describe('NetworkLimiter', () => {
  const request = (i: number) => ({ name: `http://127.0.0.1/api/${i}`, method: 'GET', status: 200, duration: 3 });

  it('records at most the minute count of requests, cutting a batch that crosses it', () => {
    const limiter = new NetworkLimiter();
    const first = limiter.admit({ requests: Array.from({ length: NETWORK_LIMITS.requestsPerMinute - 2 }, (_, i) => request(i)) }, 0);
    expect(first?.requests).toHaveLength(NETWORK_LIMITS.requestsPerMinute - 2);
    expect(limiter.admit({ requests: [request(1), request(2), request(3)] }, 10)?.requests.map((r) => r.name)).toEqual([request(1).name, request(2).name]);
    expect(limiter.admit({ requests: [request(4)] }, 20)).toBeUndefined();
    expect(limiter.admit({ requests: [request(5)] }, 60_000)?.requests).toEqual([request(5)]);
  });

  it('cuts URLs, bodies and header values, and adds none that were absent', () => {
    const limiter = new NetworkLimiter();
    const long = 'q'.repeat(NETWORK_LIMITS.bodyLength * 2);
    const [bounded] = limiter.admit(
      {
        requests: [
          {
            ...request(0),
            name: `http://x/?${long}`,
            requestBody: long,
            responseBody: null,
            requestHeaders: { a: long },
          },
        ],
      },
      0,
    )!.requests;
    expect(bounded.name).toHaveLength(NETWORK_LIMITS.urlLength + 1);
    expect(bounded.requestBody).toHaveLength(NETWORK_LIMITS.bodyLength + 1);
    expect(bounded.responseBody).toBeNull();
    expect(bounded.requestHeaders!.a).toHaveLength(NETWORK_LIMITS.headerLength + 1);
    expect('responseHeaders' in bounded).toBe(false);
    const [plain] = limiter.admit({ requests: [request(1)] }, 0)!.requests;
    expect(plain).toEqual(request(1));
  });
});
