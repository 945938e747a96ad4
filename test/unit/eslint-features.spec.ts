// The lint rule that keeps infrastructure/, common/, domain/ and config/ from importing a feature
// folder names the feature folders one by one (eslint.config.mjs, FEATURES): a folder added to src/
// and not to the list was not guarded (src/archives was not, and infrastructure/nats imported from it).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const SHARED = ['infrastructure', 'common', 'domain', 'config'];

describe('eslint.config.mjs FEATURES', () => {
  it('names every folder of src/ but the shared ones', () => {
    const config = readFileSync(join(ROOT, 'eslint.config.mjs'), 'utf8');
    const list = /const FEATURES = \[([^\]]*)\]/.exec(config)?.[1] ?? '';
    const named = [...list.matchAll(/'([^']+)'/g)].map((m) => m[1]).sort();
    const folders = readdirSync(join(ROOT, 'src'), { withFileTypes: true })
      .filter((d) => d.isDirectory() && !SHARED.includes(d.name))
      .map((d) => d.name)
      .sort();
    expect(named).toEqual(folders);
  });
});
