import { Browser, chromium, type LaunchOptions } from 'playwright-core';
import { testEnv } from './env';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** Debian's Chromium through playwright-core; never a downloaded browser. `options` add to ours. */
export function launchChromium(options: LaunchOptions = {}): Promise<Browser> {
  let path = '/usr/bin/chromium';
  try {
    path = testEnv().chromiumPath;
  } catch {
    /* integration specs may run without the stack */
  }
  return chromium.launch({ ...options, executablePath: path, args: [...CHROMIUM_ARGS, ...(options.args ?? [])] });
}
