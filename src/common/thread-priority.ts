// A worker thread's own CPU priority (Linux): a nice value for this thread only, set through its
// thread id (setpriority on a tid applies to that thread). Within the process's scheduling group the
// service's thread then gets the CPU first; the worker takes what it leaves.
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

/** Lowers the calling thread's priority to nice `value` (0 or less, or not Linux: unchanged). */
export function lowerThreadPriority(value: number): void {
  if (value <= 0 || process.platform !== 'linux') return;
  try {
    setPriority(Number(readlinkSync('/proc/thread-self').split('/').pop()), value);
  } catch {
    // no /proc, or not allowed: the thread keeps the process's priority
  }
}
