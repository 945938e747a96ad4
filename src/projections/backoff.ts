/** Redelivery delay after `failures` consecutive failed batches: 0.5 s doubling to 30 s. */
export function retryDelayMs(failures: number): number {
  return Math.min(30_000, 500 * 2 ** Math.max(0, Math.min(failures, 16) - 1));
}
