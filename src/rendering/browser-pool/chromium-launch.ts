// Starting Debian's Chromium for the renderer: the arguments that take its network away, a launch
// bounded in time whose late arrival is closed rather than leaked, and a priority below the service's.
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  // No network at all. Replayed documents are untrusted, and the request interception of
  // replay-page.ts does not see what Chromium fetches on its own: <link rel=prefetch> requests and
  // rel=preconnect connections reached any address the service can reach (ClickHouse's HTTP port
  // answers queries on GET). Every host name and IP literal resolves to nothing, and every
  // connection, loopback included, goes to a proxy that is not there.
  '--host-resolver-rules=MAP * ~NOTFOUND',
  '--proxy-server=http://127.0.0.1:1',
  '--proxy-bypass-list=<-loopback>',
];

/**
 * The shell script that starts Chromium at scheduling priority `nice` (RENDER_NICE, docs/limits.md).
 * Playwright starts Chromium in a session of its own, so on Linux with autogroup scheduling (the
 * default) its threads compete as one group with the service's group whatever their nice values:
 * the script lowers the group's priority (/proc/self/autogroup). Where groups are off, the threads'
 * own nice counts; Chromium run as root sets its own (its browser process to -8), so as root the
 * script takes CAP_SYS_NICE away from it (setpriv, where installed) before `nice`.
 */
export function nicedChromiumScript(chromiumPath: string, nice: number): string {
  if (!Number.isInteger(nice) || nice < 1 || nice > 19) throw new RangeError(`nice must be 1 to 19, got ${nice}`);
  const run = `nice -n ${nice} '${chromiumPath.replace(/'/g, `'\\''`)}' "$@"`;
  return [
    '#!/bin/sh',
    '# Written by Tapedeck (RENDER_NICE): Chromium below the service in CPU priority.',
    `echo ${nice} > /proc/self/autogroup 2>/dev/null`,
    `if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then exec setpriv --inh-caps=-sys_nice --bounding-set=-sys_nice ${run}; fi`,
    `exec ${run}`,
    '',
  ].join('\n');
}

/** The executable to launch: `chromiumPath` itself, or (nice > 0, Linux) the script above, written once per content. */
export function chromiumExecutable(chromiumPath: string, nice = 0): string {
  if (nice <= 0 || process.platform !== 'linux') return chromiumPath;
  const script = nicedChromiumScript(chromiumPath, nice);
  const file = join(tmpdir(), `tapedeck-chromium-${createHash('sha256').update(script).digest('hex').slice(0, 16)}.sh`);
  if (!existsSync(file)) {
    const partial = `${file}.${process.pid}.tmp`;
    writeFileSync(partial, script);
    chmodSync(partial, 0o755);
    renameSync(partial, file); // atomic: processes starting at once never run a half-written script
  }
  return file;
}

/** Launches Chromium within `timeoutMs`; a launch that finishes later is closed. */
export function launchBrowser(chromiumPath: string, timeoutMs: number, nice = 0): Promise<Browser> {
  // Playwright's own signal handlers stay off: on SIGINT it closes the browsers and exits the process
  // with 130 at once, cutting the service's graceful stop short (npm start then left nats-server and
  // clickhouse-server running). The service closes the browsers in its shutdown (RenderingModule);
  // playwright still kills them if the process exits without that.
  // playwright-core is loaded by the first launch, not with this module: with RENDER_THREAD=worker
  // only the render thread launches, and the service's thread never holds its 7 MB of sources and
  // their compiled code (a larger heap makes every full collection on that thread longer).
  const launching = import('playwright-core').then(({ chromium }) =>
    chromium.launch({
      executablePath: chromiumExecutable(chromiumPath, nice),
      args: CHROMIUM_ARGS,
      timeout: timeoutMs,
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    }),
  );
  return launchedWithin(launching, timeoutMs);
}

/** `launching` (a browser starting), or a timeout error after `timeoutMs`; a browser arriving later is closed. */
export async function launchedWithin<B extends { close(): Promise<unknown> }>(launching: Promise<B>, timeoutMs: number): Promise<B> {
  try {
    return await withTimeout(launching, timeoutMs);
  } catch (err) {
    launching.then(
      (b) => b.close(),
      () => undefined,
    );
    throw err;
  }
}

export function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([p, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms)))]).finally(() =>
    clearTimeout(timer),
  );
}
