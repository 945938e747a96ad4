// `npm start` (through scripts/start-local.sh): installs what is missing, builds, then runs the local
// stack (dist/local/start-local.js) in this same process. One node process from npm's child onwards,
// with SIGINT/SIGTERM/SIGHUP handlers from its first line: no shell in between keeps a signal from
// the process that stops the stack, even when started in the background (where shells ignore SIGINT).
// A signal during the steps before the stack stops the step and exits; afterwards the stack handles it.
// `npm start -- --no-build` skips the steps and runs the build already in dist/ (the tests do, as
// rebuilding would empty dist/ under the specs that run beside them).
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'];
let running;
let stoppedBy;

const onSignal = (signal) => {
  stoppedBy ??= signal;
  if (!running) process.exit(130);
  // The build runs in a group of its own (the compiler under npm and sh), stopped whole; ensure-deps
  // stays in the terminal's group, where sudo can ask for a password, and is stopped alone.
  try {
    process.kill(running.group ? -running.child.pid : running.child.pid, 'SIGTERM');
  } catch {
    // already gone
  }
};
for (const s of SIGNALS) process.on(s, onSignal);

/** Runs a step to its end; exits with its code when it fails, or when a signal came meanwhile. */
function run(command, args, group) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: [group ? 'ignore' : 'inherit', 'inherit', 'inherit'], detached: group });
    running = { child, group };
    child.on('exit', (code) => {
      running = undefined;
      if (stoppedBy) {
        process.stderr.write(`${stoppedBy}: stopped before the stack started\n`);
        process.exit(130);
      }
      if (code !== 0) process.exit(code ?? 1);
      resolve();
    });
    child.on('error', (e) => {
      process.stderr.write(`${command}: ${e.message}\n`);
      process.exit(1);
    });
  });
}

const args = process.argv.slice(2);
if (args.some((a) => a !== '--no-build')) {
  process.stderr.write(`usage: npm start [-- --no-build]\n`);
  process.exit(2);
}
if (!args.includes('--no-build')) {
  await run('bash', ['scripts/ensure-deps.sh'], false);
  await run('npm', ['run', 'build', '--silent'], true);
}
// The stack installs its own handlers as it loads (synchronously, so no signal falls between).
for (const s of SIGNALS) process.removeListener(s, onSignal);
createRequire(import.meta.url)(join(root, 'dist', 'local', 'start-local.js'));
