// Bundles the browser recorder (src/recorder-sdk/browser) into dist/sdk/recorder.js: an IIFE with the
// global `Tapedeck`, minified, ES2018, with recorder.js.map beside it. Runs after `nest build` (which
// empties dist/). `--outdir DIR` writes elsewhere (for manual checks that must not race a rebuild).
import { build } from 'esbuild';
import { readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const rrweb = JSON.parse(readFileSync(join(root, 'node_modules/@rrweb/record/package.json'), 'utf8'));
const outdirArg = process.argv.indexOf('--outdir');
const outdir = outdirArg > 0 ? resolve(process.argv[outdirArg + 1]) : join(root, 'dist/sdk');
const outfile = join(outdir, 'recorder.js');
const MAX_BYTES = 250 * 1024;

const result = await build({
  entryPoints: [join(root, 'src/recorder-sdk/browser/recorder.ts')],
  outfile,
  bundle: true,
  format: 'iife',
  globalName: 'Tapedeck',
  platform: 'browser',
  target: 'es2018',
  minify: true,
  sourcemap: 'linked',
  sourcesContent: true,
  legalComments: 'none',
  tsconfig: join(root, 'src/recorder-sdk/browser/tsconfig.json'),
  define: {
    __TAPEDECK_VERSION__: JSON.stringify(pkg.version),
    __RRWEB_VERSION__: JSON.stringify(rrweb.version),
  },
  banner: { js: `/*! Tapedeck recorder ${pkg.version} (MIT); includes rrweb ${rrweb.version} (MIT) */` },
  logLevel: 'warning',
  metafile: true,
});

const size = statSync(outfile).size;
if (result.errors.length > 0) process.exit(1);
if (size > MAX_BYTES) {
  console.error(`build-sdk: ${outfile} is ${size} bytes, over the ${MAX_BYTES} byte budget`);
  process.exit(1);
}
console.log(`build-sdk: ${relative(process.cwd(), outfile)} ${(size / 1024).toFixed(1)} KiB (+ recorder.js.map)`);
