import { configSchema } from '../../src/config/config';
import { documentedConfig, documentedEnv } from './documented-config';

describe('the configuration table of docs/operations.md', () => {
  it('names every variable of src/config/config.ts exactly once, and nothing else', () => {
    const documented = documentedEnv();
    expect([...documented].sort()).toEqual(Object.keys(configSchema.shape).sort());
    expect(new Set(documented).size).toBe(documented.length);
  });

  it("gives each variable the schema's default ('unset' and 'empty' for none and '')", () => {
    const defaults: Record<string, unknown> = configSchema.parse({});
    const shown = (v: unknown) => (v === undefined ? 'unset' : v === '' ? 'empty' : String(v));
    for (const row of documentedConfig()) {
      row.names.forEach((name, i) => expect({ name, default: row.defaults[i] }).toEqual({ name, default: shown(defaults[name]) }));
    }
  });
});
