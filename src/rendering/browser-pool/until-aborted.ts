// Playwright calls in flight when their context is closed do not always settle (newPage() hangs),
// so a timed-out render stops waiting for them here instead of relying on their rejection.
export function untilAborted<T>(work: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return work;
  work.catch(() => undefined); // it may still fail after we stopped listening
  if (signal.aborted) return Promise.reject(new Error('aborted: the render ran out of time'));
  let onAbort!: () => void;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(new Error('aborted: the render ran out of time'));
    signal.addEventListener('abort', onAbort, { once: true });
  });
  return Promise.race([work, aborted]).finally(() => signal.removeEventListener('abort', onAbort));
}
