// The configuration table of docs/operations.md, the one list of the variables operators may set.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

export interface DocumentedRow {
  /** The variables a row names in its first cell. */
  names: string[];
  /** The default cell, split per variable when it lists one value each (`a`, `b`), else one value for all. */
  defaults: string[];
}

const OPERATIONS = resolve(__dirname, '..', '..', 'docs', 'operations.md');

/** The rows of the table under `## Configuration`. */
export function documentedConfig(): DocumentedRow[] {
  const text = readFileSync(OPERATIONS, 'utf8');
  const section = text.slice(text.indexOf('\n## Configuration\n'), text.indexOf('\n## ', text.indexOf('\n## Configuration\n') + 1));
  return section
    .split('\n')
    .filter((l) => l.startsWith('| `'))
    .map((l) => {
      const [name, def] = l.split(' | ');
      const names = [...name.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]);
      // A row of one variable keeps its whole default, commas included (`loopback,linklocal,…`).
      const values = (names.length > 1 ? def.split(/,\s*/) : [def]).map((v) => v.trim().replace(/^`(.*)`$/, '$1'));
      return { names, defaults: names.map((_, i) => (values.length === names.length ? values[i] : values[0])) };
    });
}

export const documentedEnv = (): string[] => documentedConfig().flatMap((r) => r.names);
