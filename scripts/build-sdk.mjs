// Builds the code that runs in browsers, after `nest build` (which empties dist/) (and the console, at the end):
// - the browser recorder (src/recorder-sdk/browser) into dist/sdk/recorder.js: an IIFE with the
//   global `Tapedeck`, minified, ES2018, with recorder.js.map beside it, within a size budget;
// - the in-page scripts of the player and screenshot pages (src/rendering/in-page) into
//   dist/in-page/<page>.js, one minified IIFE per page, read by the page builders at run time
//   (rendering/shared/in-page-scripts.ts).
// Both are type-checked first against their own tsconfig (DOM lib, no Node types): esbuild only strips
// types. `--outdir DIR` writes into DIR instead of dist/ (for manual checks that must not race a rebuild).
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const rrweb = JSON.parse(readFileSync(join(root, 'node_modules/@rrweb/record/package.json'), 'utf8'));
const outdirArg = process.argv.indexOf('--outdir');
const dist = outdirArg > 0 ? resolve(process.argv[outdirArg + 1]) : join(root, 'dist');
const outfile = join(dist, 'sdk', 'recorder.js');
const MAX_BYTES = 250 * 1024;
const RECORDER = join(root, 'src/recorder-sdk/browser');
const IN_PAGE = join(root, 'src/rendering/in-page');
/** One bundle per page that runs our code: the hosted player, and the screenshot renderer's replay page. */
const IN_PAGE_ENTRIES = ['player-bootstrap', 'screenshot-page', 'keyframe-page'];
const CONSOLE = join(root, 'src/console/web');
/** The console's own JavaScript, gzipped (the player it frames is served apart). */
const CONSOLE_MAX_GZIP_BYTES = 150 * 1024;

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
for (const dir of [RECORDER, IN_PAGE, CONSOLE]) {
  try {
    execFileSync(process.execPath, [tsc, '--noEmit', '-p', join(dir, 'tsconfig.json')], { stdio: 'inherit' });
  } catch {
    console.error(`build-sdk: type errors in ${relative(root, dir)}`);
    process.exit(1);
  }
}

const result = await build({
  entryPoints: [join(RECORDER, 'recorder.ts')],
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
  tsconfig: join(RECORDER, 'tsconfig.json'),
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

// The player's bundle is inlined in its page under a CSP nonce; the screenshot page's is evaluated
// after rrweb's UMD bundle. Strict (the tsconfig's `strict` makes esbuild say so), like the
// hand-written scripts they replace; no source map (the pages serve no file beside them).
const inPage = await build({
  entryPoints: IN_PAGE_ENTRIES.map((name) => join(IN_PAGE, `${name}.ts`)),
  outdir: join(dist, 'in-page'),
  bundle: true,
  format: 'iife',
  platform: 'browser',
  target: 'es2018',
  minify: true,
  legalComments: 'none',
  tsconfig: join(IN_PAGE, 'tsconfig.json'),
  logLevel: 'warning',
});
if (inPage.errors.length > 0) process.exit(1);
const inPageSizes = IN_PAGE_ENTRIES.map((name) => `${name}.js ${(statSync(join(dist, 'in-page', `${name}.js`)).size / 1024).toFixed(1)} KiB`);
console.log(`build-sdk: ${relative(process.cwd(), join(dist, 'in-page'))}/ ${inPageSizes.join(', ')}`);

// The console (src/console/web, Preact and uPlot): one script and one stylesheet in dist/console-web/,
// served by the console module with the page that names them.
const consoleOut = join(dist, 'console-web');
const consoleBuild = await build({
  entryPoints: { console: join(CONSOLE, 'main.tsx') },
  outdir: consoleOut,
  bundle: true,
  format: 'iife',
  platform: 'browser',
  target: 'es2020',
  minify: true,
  legalComments: 'none',
  jsx: 'automatic',
  jsxImportSource: 'preact',
  tsconfig: join(CONSOLE, 'tsconfig.json'),
  logLevel: 'warning',
});
if (consoleBuild.errors.length > 0) process.exit(1);
const consoleGzip = gzipSync(readFileSync(join(consoleOut, 'console.js'))).length;
if (consoleGzip > CONSOLE_MAX_GZIP_BYTES) {
  console.error(`build-sdk: console.js is ${consoleGzip} bytes gzipped, over the ${CONSOLE_MAX_GZIP_BYTES} byte budget`);
  process.exit(1);
}
console.log(
  `build-sdk: ${relative(process.cwd(), consoleOut)}/ console.js ${(consoleGzip / 1024).toFixed(1)} KiB gzipped, console.css ${(statSync(join(consoleOut, 'console.css')).size / 1024).toFixed(1)} KiB`,
);
