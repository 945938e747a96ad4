import { readFileSync } from 'node:fs';
import type { TestEnv } from './stack';

let cached: TestEnv | undefined;

/** The stack started by global-setup (URLs, bootstrap keys, data directory). */
export function testEnv(): TestEnv {
  if (!cached) {
    const file = process.env.TAPEDECK_TEST_ENV;
    if (!file) throw new Error('TAPEDECK_TEST_ENV is not set: run e2e tests through jest --selectProjects e2e');
    cached = JSON.parse(readFileSync(file, 'utf8')) as TestEnv;
  }
  return cached;
}
