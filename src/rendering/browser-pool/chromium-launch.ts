// Starting Debian's Chromium for the renderer: the arguments that take its network away, and a launch
// bounded in time whose late arrival is closed rather than leaked.
import { chromium, type Browser } from 'playwright-core';

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

/** Launches Chromium (or `launch`, in tests) within `timeoutMs`; a launch that finishes later is closed. */
export async function launchBrowser(chromiumPath: string, timeoutMs: number, launch?: () => Promise<Browser>): Promise<Browser> {
  // Playwright's own signal handlers stay off: on SIGINT it closes the browsers and exits the process
  // with 130 at once, cutting the service's graceful stop short (npm start then left nats-server and
  // clickhouse-server running). The service closes the browsers in its shutdown (RenderingModule);
  // playwright still kills them if the process exits without that.
  const launching =
    launch?.() ??
    chromium.launch({
      executablePath: chromiumPath,
      args: CHROMIUM_ARGS,
      timeout: timeoutMs,
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
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
