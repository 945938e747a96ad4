import { Browser, chromium } from 'playwright-core';
import { testEnv } from './env';

export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

/** Debian's Chromium through playwright-core; never a downloaded browser. */
export function launchChromium(): Promise<Browser> {
  let path = '/usr/bin/chromium';
  try {
    path = testEnv().chromiumPath;
  } catch {
    /* integration specs may run without the stack */
  }
  return chromium.launch({ executablePath: path, args: CHROMIUM_ARGS });
}
