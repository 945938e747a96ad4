import { rmSync } from 'node:fs';
import type { ManagedProcess } from '../../src/local/processes';
import type { ServiceProcess } from './stack';

export default async function globalTeardown() {
  const stack = (globalThis as Record<string, unknown>).__TAPEDECK_STACK__ as { procs: ManagedProcess[]; service: ServiceProcess; dir: string } | undefined;
  if (!stack) return;
  await stack.service.stop();
  await Promise.all(stack.procs.map((p) => p.stop()));
  if (!process.env.TAPEDECK_KEEP_TEST_DATA) rmSync(stack.dir, { recursive: true, force: true });
}
