/** Polls `read` until `predicate` holds; throws with the last value after `timeoutMs`. */
export async function pollUntil<T>(read: () => Promise<T>, predicate: (v: T) => boolean, timeoutMs = 15_000, intervalMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      last = await read();
      if (predicate(last)) return last;
    } catch (e) {
      lastError = e;
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  throw new Error(`pollUntil timed out; last value: ${JSON.stringify(last)?.slice(0, 500)}${lastError ? `; last error: ${String(lastError)}` : ''}`);
}
