import { AppError } from '../../common/app-error';
import { parseTimeSelector, resolvePosition } from './time-selector';

const codeOf = (fn: () => unknown): string | undefined => {
  try {
    fn();
  } catch (e) {
    return e instanceof AppError ? e.code : 'other';
  }
  return undefined;
};

describe('parseTimeSelector', () => {
  it.each([
    [undefined, { kind: 'offset', value: 0 }],
    ['offset:0', { kind: 'offset', value: 0 }],
    ['offset:1500', { kind: 'offset', value: 1500 }],
    ['offset:-2000', { kind: 'offset', value: -2000 }],
    ['percent:0', { kind: 'percent', value: 0 }],
    ['percent:12.5', { kind: 'percent', value: 12.5 }],
    ['percent:100', { kind: 'percent', value: 100 }],
    ['epoch:1700000000000', { kind: 'epoch', value: 1700000000000 }],
  ])('%p parses', (raw, expected) => {
    expect(parseTimeSelector(raw)).toEqual(expected);
  });

  it.each([
    '',
    'offset',
    'offset:',
    'offset:1.5',
    'offset:abc',
    'offset:1e3',
    'offset: 10',
    'offset:99999999999999999',
    'percent:',
    'percent:-1',
    'percent:100.01',
    'percent:101',
    'percent:abc',
    'percent:.5',
    'percent:NaN',
    'epoch:',
    'epoch:-5',
    'epoch:1.5',
    'time:10',
    '10',
    'OFFSET:10',
    'offset:10:20',
  ])('%p is a 400 with a message naming the forms', (raw) => {
    expect(codeOf(() => parseTimeSelector(raw))).toBe('bad_request');
    expect(() => parseTimeSelector(raw)).toThrow(/Invalid time/);
  });
});

describe('resolvePosition', () => {
  const first = 1_000_000;
  const last = 1_010_000;

  it.each([
    [{ kind: 'offset', value: 0 }, first],
    [{ kind: 'offset', value: 2500 }, first + 2500],
    [{ kind: 'offset', value: 10000 }, last],
    [{ kind: 'offset', value: -2000 }, last - 2000],
    [{ kind: 'offset', value: -10000 }, first],
    [{ kind: 'percent', value: 0 }, first],
    [{ kind: 'percent', value: 50 }, first + 5000],
    [{ kind: 'percent', value: 12.5 }, first + 1250],
    [{ kind: 'percent', value: 100 }, last],
    [{ kind: 'epoch', value: first + 42 }, first + 42],
  ] as const)('%p → %p', (sel, expected) => {
    expect(resolvePosition(sel, first, last)).toBe(expected);
  });

  it.each([
    { kind: 'offset', value: 10001 },
    { kind: 'offset', value: -10001 },
    { kind: 'epoch', value: first - 1 },
    { kind: 'epoch', value: last + 1 },
  ] as const)('%p is outside the recording: 422', (sel) => {
    expect(codeOf(() => resolvePosition(sel, first, last))).toBe('unprocessable');
  });

  it('works for a single-instant recording', () => {
    expect(resolvePosition({ kind: 'percent', value: 70 }, first, first)).toBe(first);
    expect(codeOf(() => resolvePosition({ kind: 'offset', value: 1 }, first, first))).toBe('unprocessable');
  });
});
