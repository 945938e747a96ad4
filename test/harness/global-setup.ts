import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startStack } from './stack';

export default async function globalSetup() {
  const { env, procs, service } = await startStack();
  const file = join(env.dir, 'env.json');
  writeFileSync(file, JSON.stringify(env, null, 2));
  process.env.TAPEDECK_TEST_ENV = file;
  (globalThis as Record<string, unknown>).__TAPEDECK_STACK__ = { procs, service, dir: env.dir };
}
