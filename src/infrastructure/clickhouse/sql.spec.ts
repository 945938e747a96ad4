import fc from 'fast-check';
import { ident, list, literal, quoteString, sql } from './sql';

describe('sql escaping helper', () => {
  it('quotes strings with backslash escapes', () => {
    expect(quoteString("it's")).toBe("'it\\'s'");
    expect(quoteString('a\\b')).toBe("'a\\\\b'");
    expect(quoteString('a\nb\u0000')).toBe("'a\\x0ab\\x00'");
    expect(quoteString('ünï 🎉')).toBe("'ünï 🎉'");
  });

  it('never leaves an unescaped quote or control character', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        const q = quoteString(s);
        const inner = q.slice(1, -1);
        // Remove escape pairs, then no quote, backslash or control char may remain.
        const rest = inner.replace(/\\(x[0-9a-f]{2}|'|\\)/g, '');
        expect(rest).not.toMatch(/['\\\u0000-\u001f\u007f]/);
      }),
      { numRuns: 2000 },
    );
  });

  it('refuses lone surrogates, non-finite numbers and bad identifiers', () => {
    expect(() => quoteString('\ud800')).toThrow(/surrogate/);
    expect(() => literal(Number.NaN)).toThrow();
    expect(() => literal(Infinity)).toThrow();
    expect(() => literal(5e-323)).toThrow(/subnormal/);
    expect(() => ident('a`b')).toThrow();
    expect(() => ident('1abc')).toThrow();
    expect(() => list([])).toThrow();
    expect(() => literal({} as never)).toThrow();
  });

  it('formats numbers, booleans, arrays and nested fragments', () => {
    expect(literal(-1)).toBe('(-1)');
    expect(literal(10n)).toBe('10');
    expect(literal(true)).toBe('1');
    expect(literal(['a', 1])).toBe("['a', 1]");
    const inner = sql`x = ${'v'}`;
    expect(sql`SELECT 1 FROM ${ident('t')} WHERE ${inner} AND y IN ${list([1, 2])}`.text).toBe("SELECT 1 FROM `t` WHERE x = 'v' AND y IN (1, 2)");
  });
});
