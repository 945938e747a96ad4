const clone = <T>(v: T): T => structuredClone(v);
import { AppError, StoreUnavailable } from './app-error';
import { fromThreadError, toThreadError } from './thread-errors';
import { ValidationError } from './validation';

// As a worker thread's answer crosses: through the structured clone of postMessage.
const across = (e: unknown, thread = 'Some thread') => fromThreadError(clone(toThreadError(e)), thread);

describe('errors crossing from a worker thread', () => {
  it('keeps an AppError its code, message and retry hint', () => {
    const e = across(new StoreUnavailable('Event store (NATS JetStream) is unreachable; retry later', 3)) as AppError;
    expect(e).toBeInstanceOf(AppError);
    expect({ code: e.code, message: e.message, retryAfterSeconds: e.retryAfterSeconds }).toEqual({
      code: 'unavailable',
      message: 'Event store (NATS JetStream) is unreachable; retry later',
      retryAfterSeconds: 3,
    });
  });

  it('keeps a ValidationError its issues (its 400 names the parameter)', () => {
    const e = across(new ValidationError('Invalid query: from: later than to', [{ path: 'from', message: 'later than to' }])) as ValidationError;
    expect(e).toBeInstanceOf(ValidationError);
    expect({ message: e.message, issues: e.issues }).toEqual({
      message: 'Invalid query: from: later than to',
      issues: [{ path: 'from', message: 'later than to' }],
    });
  });

  it("makes anything else a failure of the thread's own, named", () => {
    for (const [thrown, message] of [
      [new TypeError('x is not a function'), 'Read thread: x is not a function'],
      ['a string', 'Read thread: a string'],
    ] as const) {
      const e = across(thrown, 'Read thread');
      expect(e).not.toBeInstanceOf(AppError);
      expect(e).not.toBeInstanceOf(ValidationError);
      expect(e.message).toBe(message);
    }
  });
});
