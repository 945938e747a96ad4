// Graceful stop (SIGTERM, as an orchestrator sends it): a second instance of the service on the
// shared stack is stopped while clients are connected. What a WebSocket buffered is stored and the
// socket closed with 1001; a request in flight on a keep-alive connection gets its answer with
// Connection: close; and the process exits by the signal within seconds. Before, an open WebSocket
// held the stop until SIGKILL, and a connection busy at the stop kept it for the 72 s keep-alive.
import { randomUUID } from 'node:crypto';
import { Agent, request } from 'node:http';
import WebSocket from 'ws';
import { testEnv } from '../harness/env';
import { api, sampleEvents } from '../harness/http';
import { ServiceProcess, startService } from '../harness/stack';

/** Well under the 72 s keep-alive timeout and the orchestrator's grace period. */
const PROMPT_EXIT_MS = 10_000;

let svc: ServiceProcess;

beforeEach(async () => {
  const env = testEnv();
  svc = await startService({ ...env.serviceEnv, TAPEDECK_ROLE: 'api', TAPEDECK_ADMIN_TOKEN: '' }, env.dir, `shutdown-${randomUUID().slice(0, 8)}`);
});

afterEach(async () => {
  await svc?.stop('SIGKILL');
});

/** Sends SIGTERM; resolves with how the process ended and after how long (or 'timeout'). */
function terminate(): Promise<{ code: number | null; signal: string | null; ms: number } | 'timeout'> {
  const started = Date.now();
  const exited = new Promise<{ code: number | null; signal: string | null; ms: number }>((r) =>
    svc.child.once('exit', (code, signal) => r({ code, signal, ms: Date.now() - started })),
  );
  svc.child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), PROMPT_EXIT_MS)));
  return Promise.race([exited, late]).finally(() => clearTimeout(timer));
}

const stored = async (id: string) => (await api(`/recordings/${id}/events`, { key: testEnv().secretKey })).json<unknown[]>();

describe('graceful stop on SIGTERM', () => {
  it('stores what an rrweb-client WebSocket had buffered, closes it with 1001, and exits promptly', async () => {
    const id = randomUUID();
    const events = sampleEvents(20);
    const ws = new WebSocket(`${svc.url.replace(/^http/, 'ws')}/recordings/${id}/events/ws?token=${testEnv().publicKey}`);
    const frames: { type: string; ok?: boolean; events?: number }[] = [];
    ws.on('message', (m) => frames.push(JSON.parse(String(m))));
    const closed = new Promise<number>((r) => ws.once('close', (code) => r(code)));
    await new Promise((resolve, reject) => (ws.once('open', resolve), ws.once('error', reject)));
    // One event per text frame, as @rrweb/browser-client sends: buffered for up to 250 ms.
    for (const e of events) ws.send(JSON.stringify(e));
    await new Promise((r) => setTimeout(r, 20));

    const end = await terminate();
    expect(end).toMatchObject({ code: null, signal: 'SIGTERM' });
    expect(await closed).toBe(1001);
    expect(frames.filter((f) => f.type === 'upstream-result')).toEqual([expect.objectContaining({ ok: true, events: 20 })]);
    expect(await stored(id)).toHaveLength(20);
  });

  it('answers a request in flight on a keep-alive connection with Connection: close, then exits promptly', async () => {
    const id = randomUUID();
    const body = Buffer.from(JSON.stringify(sampleEvents(10)));
    const url = new URL(svc.url);
    const agent = new Agent({ keepAlive: true });
    // The body arrives in two parts: the stop begins while the request is in flight.
    const answered = new Promise<{ status: number; connection?: string }>((resolve, reject) => {
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: `/recordings/${id}/events`,
          method: 'POST',
          agent,
          headers: { authorization: `Bearer ${testEnv().publicKey}`, 'content-type': 'application/json', 'content-length': body.length },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection }));
        },
      );
      req.on('error', reject);
      req.write(body.subarray(0, 100));
      setTimeout(() => req.end(body.subarray(100)), 300);
    });
    await new Promise((r) => setTimeout(r, 100));
    const end = terminate();
    expect(await answered).toEqual({ status: 200, connection: 'close' });
    expect(await end).toMatchObject({ code: null, signal: 'SIGTERM' });
    agent.destroy();
    expect(await stored(id)).toHaveLength(10);
  });
});
