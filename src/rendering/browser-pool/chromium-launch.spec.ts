import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromiumExecutable, nicedChromiumScript } from './chromium-launch';

describe('Chromium below the service in priority (RENDER_NICE)', () => {
  let dir: string;
  const scripts: string[] = [];
  const executable = (path: string, nice: number) => {
    const file = chromiumExecutable(path, nice);
    scripts.push(file);
    return file;
  };
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'niced-chromium-'))));
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
    for (const file of scripts.splice(0)) if (file.startsWith(tmpdir())) rmSync(file, { force: true });
  });

  /** A stand-in for Chromium that prints its arguments, its nice value and its autogroup's. */
  function fakeChromium(name: string): string {
    const path = join(dir, name);
    writeFileSync(path, '#!/bin/sh\nprintf "%s|" "$@"; echo; nice; cat /proc/self/autogroup 2>/dev/null || echo none\n', { mode: 0o755 });
    return path;
  }

  it('is the path itself at 0, and a script at 1 to 19 that starts it lower with its arguments intact', () => {
    expect(chromiumExecutable('/usr/bin/chromium', 0)).toBe('/usr/bin/chromium');
    const chromium = fakeChromium("it's chromium");
    const script = executable(chromium, 7);
    expect(statSync(script).mode & 0o111).not.toBe(0);
    expect(executable(chromium, 7)).toBe(script); // written once per content
    const [args, nice, autogroup] = execFileSync('setsid', [script, '--headless', 'a b', "c'd"], { encoding: 'utf8' }).trim().split('\n');
    expect(args).toBe("--headless|a b|c'd|");
    expect(Number(nice)).toBe(7);
    // In a session of its own (as Playwright starts it), the group's priority is lowered too.
    if (autogroup !== 'none') expect(autogroup).toMatch(/ nice 7$/);
  });

  it('refuses a priority outside 1 to 19', () => {
    expect(() => nicedChromiumScript('/usr/bin/chromium', 20)).toThrow(RangeError);
    expect(() => nicedChromiumScript('/usr/bin/chromium', 0)).toThrow(RangeError);
    expect(readFileSync(executable(fakeChromium('c'), 3), 'utf8')).toContain('exec nice -n 3 ');
    expect(nicedChromiumScript('/usr/bin/chromium', 3)).toContain('setpriv --inh-caps=-sys_nice --bounding-set=-sys_nice nice -n 3 ');
  });
});
