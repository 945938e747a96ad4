// Where `npm start`'s stack can be reached, for the other commands of the checkout: start-local
// writes <data dir>/local-stack.env (NATS_URL, CLICKHOUSE_URL, and PUBLIC_BASE_URL for the links the
// CLI signs) once the service answers, and the CLI reads it when NATS_URL is not set, so
// `npm run cli -- tenants list` finds the stack on its own ports (14222, not NATS's 4222). An
// explicitly set variable always wins over the file.
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const LOCAL_STACK_FILE = 'local-stack.env';
const KEYS = ['NATS_URL', 'CLICKHOUSE_URL', 'PUBLIC_BASE_URL'] as const;
export type LocalStack = Partial<Record<(typeof KEYS)[number], string>>;
type Env = Record<string, string | undefined>;

/** The checkout's root: both dist/local and src/local sit two levels below it. */
const ROOT = resolve(__dirname, '..', '..');

/** `npm start`'s data directory: TAPEDECK_DATA_DIR (relative to the checkout) or .data. */
export const localDataDir = (env: Env) => resolve(ROOT, env.TAPEDECK_DATA_DIR?.trim() || '.data');

export function writeLocalStack(dir: string, stack: Required<LocalStack>): string {
  const file = join(dir, LOCAL_STACK_FILE);
  const lines = KEYS.map((k) => `${k}=${stack[k]}`);
  // The NATS URL may carry a password: readable by the owner only, as bootstrap.json.
  writeFileSync(file, `# Written by npm start (src/local/start-local.ts): where its stack listens. Read by the CLI.\n${lines.join('\n')}\n`, { mode: 0o600 });
  return file;
}

export function readLocalStack(dir: string): LocalStack | undefined {
  let text: string;
  try {
    text = readFileSync(join(dir, LOCAL_STACK_FILE), 'utf8');
  } catch {
    return undefined;
  }
  const stack: LocalStack = {};
  for (const line of text.split('\n')) {
    const eq = line.indexOf('=');
    const key = line.slice(0, eq).trim();
    if (eq > 0 && (KEYS as readonly string[]).includes(key)) stack[key as keyof LocalStack] = line.slice(eq + 1).trim();
  }
  return stack;
}

const given = (v: string | undefined) => (v?.trim() ? v : undefined);

/**
 * `env` with the local stack's addresses filled in when NATS_URL is not set (any of the others that
 * is set still wins), and the file they came from; `env` as it is otherwise.
 */
export function withLocalStack(env: Env): { env: Env; from?: string } {
  if (given(env.NATS_URL)) return { env };
  const dir = localDataDir(env);
  const stack = readLocalStack(dir);
  if (!stack?.NATS_URL) return { env };
  const filled = Object.fromEntries(KEYS.map((k) => [k, given(env[k]) ?? stack[k]]).filter(([, v]) => v !== undefined)) as LocalStack;
  return { env: { ...env, ...filled }, from: join(dir, LOCAL_STACK_FILE) };
}
