// Runs the built CLI (dist/cli/main.js) as an operator would, with a service's environment.
import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { testEnv } from './env';
import { ROOT } from './stack';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI with the service's environment. */
export function runCli(
  args: string[],
  env: Record<string, string> = testEnv().serviceEnv,
): { done: Promise<CliResult>; child: ChildProcess; stderr(): string } {
  const child = spawn(process.execPath, [join(ROOT, 'dist', 'cli', 'main.js'), ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return { done: new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr }))), child, stderr: () => stderr };
}
