// `npm start` as a person runs it, for real: nats-server, clickhouse-server and the service, on ports
// and in a data directory of their own (npm start -- --no-build: the specs beside this one run the
// build in dist/). The banner comes last; the CLI finds the stack through local-stack.env; SIGTERM or
// SIGINT to npm's own process (or to scripts/start-local.sh run directly), at start-up or once it
// serves, stop the service, then both servers; and so does Ctrl-C on a terminal (a pseudo-terminal
// through util-linux `script`), which signals npm and the stack both, and npm passes its signal on.
import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../harness/cli';
import { pollUntil } from '../harness/poll-until';
import { alive, descendants } from '../harness/proc';
import { ROOT } from '../harness/stack';

jest.setTimeout(300_000);

const BANNER = 'Tapedeck is running at';
const LAST_LINE = 'Ctrl-C (or SIGTERM) stops the service, then NATS and ClickHouse.\n';

const portFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });

/** A TAPEDECK_LOCAL_PORT_BASE whose three ports are free, and a free service port. */
async function ports(): Promise<{ base: number; port: number }> {
  for (;;) {
    const base = 20_000 + Math.floor(Math.random() * 30_000);
    const all = [base + 123, base + 222, base + 900, base + 1000];
    if ((await Promise.all(all.map(portFree))).every(Boolean)) return { base, port: base + 1000 };
  }
}

interface Started {
  npm: ChildProcess;
  out: () => string;
  err: () => string;
  exited: Promise<number | null>;
}

const NPM = ['npm', 'start', '--', '--no-build'];

/** Runs `command` (npm start by default) as a child of this process, with a stack of its own. */
function npmStart(dir: string, base: number, port: number, extra: Record<string, string> = {}, command = NPM): Started {
  const npm = spawn(command[0], command.slice(1), {
    cwd: ROOT,
    // Nothing of this process's own configuration: the stack starts its own servers.
    env: {
      PATH: `${process.env.PATH}:/usr/sbin`,
      HOME: process.env.HOME ?? '/root',
      TAPEDECK_DATA_DIR: dir,
      TAPEDECK_LOCAL_PORT_BASE: String(base),
      PORT: String(port),
      ...extra,
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  npm.stdout!.on('data', (d) => (out += d));
  npm.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((resolve) => npm.once('exit', (code) => resolve(code)));
  return { npm, out: () => out, err: () => err, exited };
}

/** A terminal's colours and cursor moves out of the way. */
const plain = (text: string) => text.replace(/\x1b\[[0-9;]*[A-Za-z]/g, '').replace(/\r/g, '');

/** The servers under npm's process, by name: they run in process groups of their own, still its descendants. */
function servers(npm: ChildProcess): { pid: number; name: string }[] {
  return descendants(npm.pid!)
    .map((pid) => ({ pid, name: cmdline(pid) }))
    .filter((p) => /nats-server|clickhouse-server/.test(p.name));
}

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
}

/** Sends `signal` to npm's process alone (or calls `signal`) and waits for the whole tree to be gone. */
async function stopWith(s: Started, signal: NodeJS.Signals | (() => void)): Promise<number | null> {
  const tree = [s.npm.pid!, ...descendants(s.npm.pid!)];
  if (typeof signal === 'function') signal();
  else process.kill(s.npm.pid!, signal);
  let timer: NodeJS.Timeout | undefined;
  const code = await Promise.race([s.exited, new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), 60_000)))]);
  clearTimeout(timer);
  expect(code).not.toBe('timeout');
  await pollUntil(
    async () => tree.filter(alive),
    (left) => left.length === 0,
    15_000,
  );
  return code as number | null;
}

describe('npm start', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tapedeck-start-'));
  let running: Started | undefined;

  afterEach(async () => {
    // A failed test leaves nothing running.
    if (running && running.npm.exitCode === null) {
      for (const pid of [...descendants(running.npm.pid!), running.npm.pid!]) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          /* gone */
        }
      }
    }
    running = undefined;
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('prints the banner last, after JSON lines off a terminal; the CLI finds the stack; SIGTERM stops the service, then NATS and ClickHouse', async () => {
    const { base, port } = await ports();
    const s = (running = npmStart(dir, base, port));
    await pollUntil(
      async () => s.out(),
      (o) => o.includes(LAST_LINE),
      180_000,
    ).catch((e) => {
      throw new Error(`${String(e)}\nstdout:\n${s.out()}\nstderr:\n${s.err()}`);
    });
    const found = servers(s.npm).map((p) => p.name);
    expect(found).toEqual(expect.arrayContaining([expect.stringContaining('nats-server'), expect.stringContaining('clickhouse-server')]));

    // What the service logged before the banner is pino's JSON (stdout is no terminal here).
    const [logs, banner] = [s.out().slice(0, s.out().indexOf(`\n${BANNER}`)), s.out().slice(s.out().indexOf(BANNER))];
    const lines = logs.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('>'));
    expect(lines.length).toBeGreaterThan(0);
    for (const l of lines) expect(() => JSON.parse(l)).not.toThrow();
    expect(banner).toContain(`${BANNER} http://127.0.0.1:${port}`);
    expect(banner).toContain(`http://127.0.0.1:${port}/openapi.json`);
    expect(banner).toContain('npm run cli -- keys create --tenant demo --kind secret');
    await new Promise((r) => setTimeout(r, 1500));
    expect(s.out().endsWith(LAST_LINE)).toBe(true);

    expect(readFileSync(join(dir, 'local-stack.env'), 'utf8')).toContain(`NATS_URL=nats://127.0.0.1:${base + 222}\n`);
    // No NATS_URL: the CLI reads the file npm start wrote (empty variables count as unset).
    const cli = await runCli(['tenants', 'list'], { TAPEDECK_DATA_DIR: dir, NATS_URL: '', CLICKHOUSE_URL: '', PUBLIC_BASE_URL: '' }).done;
    expect(cli).toMatchObject({ code: 0, stdout: expect.stringMatching(/^ID\s+NAME[\s\S]*\ndemo\s/) });

    expect(await stopWith(s, 'SIGTERM')).toBe(0);
    expect(s.err()).toContain('SIGTERM: stopping Tapedeck');
    // The service stopped before NATS: it never saw it go away.
    expect(s.err()).not.toMatch(/nats disconnected|cannot reach NATS/);
    expect(await Promise.all([base + 123, base + 222, base + 900, port].map(portFree))).toEqual([true, true, true, true]);
  });

  it('scripts/start-local.sh run directly writes short lines with LOG_FORMAT=pretty, and stops on SIGINT the same way', async () => {
    const { base, port } = await ports();
    const s = (running = npmStart(dir, base, port, { LOG_FORMAT: 'pretty' }, ['bash', 'scripts/start-local.sh', '--no-build']));
    await pollUntil(
      async () => s.out(),
      (o) => o.includes(LAST_LINE),
      180_000,
    );
    const logs = s.out().slice(0, s.out().indexOf(`\n${BANNER}`));
    const lines = logs.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('>'));
    // No JSON and no Nest module or route lines: a few lines of what the service did.
    expect(lines.filter((l) => l.startsWith('{'))).toEqual([]);
    expect(lines.filter((l) => /RouterExplorer|InstanceLoader|RoutesResolver/.test(l))).toEqual([]);
    expect(lines.length).toBeLessThanOrEqual(25);
    for (const l of lines) expect(l).toMatch(/^\d\d:\d\d:\d\d (DEBUG|INFO |WARN |ERROR) /);
    expect(await stopWith(s, 'SIGINT')).toBe(0);
    expect(s.err()).toContain('SIGINT: stopping Tapedeck');
    expect(await Promise.all([base + 123, base + 222, base + 900, port].map(portFree))).toEqual([true, true, true, true]);
  });

  it('on a terminal: short lines, the banner last with the console, and Ctrl-C stops everything cleanly (npm passes it on too)', async () => {
    const { base, port } = await ports();
    // script(1) gives npm a pseudo-terminal; a ^C written to it is the terminal's SIGINT to its foreground group.
    const s = (running = npmStart(dir, base, port, { TERM: 'dumb' }, ['script', '-qfec', NPM.join(' '), '/dev/null']));
    await pollUntil(
      async () => plain(s.out()),
      (o) => o.includes(LAST_LINE.trim()),
      180_000,
    ).catch((e) => {
      throw new Error(`${String(e)}\nstdout:\n${s.out()}\nstderr:\n${s.err()}`);
    });
    const out = plain(s.out());
    const logs = out.slice(0, out.indexOf(`\n${BANNER}`));
    const lines = logs.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('>'));
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.length).toBeLessThanOrEqual(25);
    for (const l of lines) expect(l).toMatch(/^\d\d:\d\d:\d\d (DEBUG|INFO |WARN |ERROR) /);
    expect(out).toContain(`Open the console: http://127.0.0.1:${port}/console/\n${LAST_LINE.trim()}`);
    expect(servers(s.npm)).toHaveLength(2);

    // npm, itself interrupted, exits 130 once its child has stopped (the stack's own code is 0).
    expect([0, 130]).toContain(await stopWith(s, () => s.npm.stdin!.write('\x03')));
    const after = plain(s.out());
    expect(after).toContain('SIGINT: stopping Tapedeck');
    // One key press, two signals (the terminal's and npm's): one graceful stop, not a kill.
    expect(after).not.toMatch(/again: killing|nats disconnected/);
    expect(await Promise.all([base + 123, base + 222, base + 900, port].map(portFree))).toEqual([true, true, true, true]);
  });

  it('stops what has started when SIGTERM comes during start-up', async () => {
    const { base, port } = await ports();
    const s = (running = npmStart(dir, base, port));
    await pollUntil(
      async () => servers(s.npm),
      (p) => p.some((x) => x.name.includes('nats-server')),
      60_000,
    );
    expect(await stopWith(s, 'SIGTERM')).toBe(0);
    expect(s.out()).not.toContain(BANNER);
    expect(await Promise.all([base + 123, base + 222, base + 900, port].map(portFree))).toEqual([true, true, true, true]);
  });
});
