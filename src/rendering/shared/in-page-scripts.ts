// The scripts that run in the replaying browser (src/rendering/in-page/), as scripts/build-sdk.mjs
// bundled them into dist/in-page/: read once, and refused if they could end the inline <script>
// element the player page puts its bundle in (the CSP nonce admits that element only).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export type InPageScript = 'player-bootstrap' | 'screenshot-page' | 'keyframe-page';

// This file runs from dist/rendering/shared/ once built and from src/rendering/shared/ under
// ts-jest: either way the bundles are in dist/in-page/ at the project root.
const DIR = join(__dirname, '..', '..', '..', 'dist', 'in-page');
const loaded = new Map<InPageScript, string>();

export function inPageScript(name: InPageScript): string {
  let text = loaded.get(name);
  if (text === undefined) {
    const file = join(DIR, `${name}.js`);
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      throw new Error(`${file} is missing: npm run build bundles the in-page scripts (scripts/build-sdk.mjs)`);
    }
    if (/<\/script|<!--/i.test(text)) throw new Error(`${file} holds </script or <!--: it cannot be inlined in a page`);
    loaded.set(name, text);
  }
  return text;
}
