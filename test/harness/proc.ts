// Processes under a process, from Linux /proc: the service's Chromium and its helpers, for tests
// that check they are gone and for the bench's memory of the whole tree.
import { readdirSync, readFileSync } from 'node:fs';

/** Every descendant of `root` (children, their children…), not `root` itself. */
export function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const ppid = Number(/^PPid:\s+(\d+)/m.exec(readFileSync(`/proc/${d}/status`, 'utf8'))?.[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(d)]);
    } catch {
      /* exited meanwhile */
    }
  }
  const out: number[] = [];
  for (const queue = [root]; queue.length > 0;) {
    for (const c of children.get(queue.shift()!) ?? []) {
      out.push(c);
      queue.push(c);
    }
  }
  return out;
}

/** Running: neither gone nor a zombie waiting for its reaper. */
export function alive(pid: number): boolean {
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}

/** Stopped by a signal (SIGSTOP) and not continued yet. */
export function stopped(pid: number): boolean {
  try {
    return /^State:\s+T/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}
