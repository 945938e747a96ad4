// The one way values reach ClickHouse SQL. ClickHouse 18.16 has no server-side query parameters,
// so every value is inlined as a literal by this helper; anything else is a bug.
//   sql`SELECT * FROM ${ident('t')} WHERE id = ${id} AND n IN ${list([1, 2])}`
// Strings become single-quoted literals with backslash escapes, numbers must be finite, bigints and
// booleans are allowed, arrays become array literals, and Sql fragments nest unescaped.

export class Sql {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

export type SqlValue = string | number | bigint | boolean | null | Sql | SqlValue[];

const hex = (c: number) => '\\x' + c.toString(16).padStart(2, '0');

/** A ClickHouse string literal for any well-formed JS string. */
export function quoteString(s: string): string {
  if (typeof s !== 'string') throw new TypeError('quoteString expects a string');
  if (!s.isWellFormed()) throw new TypeError('string contains a lone surrogate');
  let out = "'";
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x27) out += "\\'";
    else if (c === 0x5c) out += '\\\\';
    else if (c < 0x20 || c === 0x7f) out += hex(c);
    else out += s[i];
  }
  return out + "'";
}

export function literal(v: SqlValue): string {
  if (v instanceof Sql) return v.text;
  if (v === null) return 'NULL';
  if (Array.isArray(v)) return '[' + v.map(literal).join(', ') + ']';
  switch (typeof v) {
    case 'string':
      return quoteString(v);
    case 'number':
      if (!Number.isFinite(v)) throw new TypeError('SQL numbers must be finite');
      // ClickHouse (18.16) cannot parse subnormal literals such as 5e-323: refuse rather than garble.
      if (v !== 0 && Math.abs(v) < 2.2250738585072014e-308) throw new TypeError('SQL numbers must not be subnormal');
      // Negative numbers parenthesised so `a - ${n}` never becomes `a --1` (a comment).
      return v < 0 || Object.is(v, -0) ? `(${String(v)})` : String(v);
    case 'bigint':
      return v < 0n ? `(${v.toString()})` : v.toString();
    case 'boolean':
      return v ? '1' : '0';
    default:
      throw new TypeError(`unsupported SQL value of type ${typeof v}`);
  }
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** An identifier (database, table, column). Only plain names are accepted. */
export function ident(name: string): Sql {
  if (!IDENT.test(name)) throw new TypeError(`invalid SQL identifier: ${JSON.stringify(name)}`);
  return new Sql('`' + name + '`');
}

/** A tuple for IN: (a, b, c). Empty lists are refused: IN () is a syntax error. */
export function list(values: SqlValue[]): Sql {
  if (values.length === 0) throw new TypeError('list() needs at least one value');
  return new Sql('(' + values.map(literal).join(', ') + ')');
}

/** Joins fragments with a separator (fragments only; values go through sql``). */
export function join(parts: Sql[], sep: string): Sql {
  return new Sql(parts.map((p) => p.text).join(sep));
}

export function sql(strings: TemplateStringsArray, ...values: SqlValue[]): Sql {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += literal(values[i]) + strings[i + 1];
  return new Sql(out);
}
