// The batch threads as the service runs them: the compiled module (dist/, where the compiled worker
// is) preparing HTTP bodies in a worker thread. What a thread prepares is byte for byte what the
// service's thread prepares, its refusals are the same 4xx, a thread stopping under a batch fails
// only that batch (503, retryable) and the next one is served by a new thread.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { deflateSync, gzipSync } from 'node:zlib';
import type { BatchBody, PreparedBatch } from '../../src/ingestion/batch-preparation';

type ThreadsModule = typeof import('../../src/ingestion/batch-threads');
type PreparationModule = typeof import('../../src/ingestion/batch-preparation');
type AppErrorModule = typeof import('../../src/common/app-error');

const DIST = join(__dirname, '../../dist');

jest.setTimeout(60_000);

const events = (n: number, start = 1_700_000_000_000) => [
  { type: 4, timestamp: start, data: { href: 'https://shop.example/ä', width: 1280, height: 720 } },
  { type: 5, timestamp: start + 1, data: { tag: 'recording-meta', payload: { plan: 'pro', includePii: true } } },
  ...Array.from({ length: n }, (_, i) => ({ type: 3, timestamp: start + 2 + i, data: { source: 1, positions: [{ x: i, y: i, id: 1, timeOffset: 0 }] } })),
];

function body(text: string | Uint8Array, more: Partial<BatchBody> = {}): BatchBody {
  return {
    tenantId: 't1',
    recordingId: 'r1',
    body: typeof text === 'string' ? Buffer.from(text) : text,
    coding: 'identity',
    format: 'json',
    maxBodyBytes: 64 * 1024 * 1024,
    maxEventBytes: 1024 * 1024,
    client: { ip: '203.0.113.9', userAgent: 'test' },
    ...more,
  };
}

describe('batch threads (compiled, a real worker thread)', () => {
  let threads: InstanceType<ThreadsModule['BatchThreads']>;
  let inThread: PreparationModule['prepareBody'];
  let DistAppError: AppErrorModule['AppError'];

  beforeAll(async () => {
    const { BatchThreads } = (await import(join(DIST, 'ingestion/batch-threads'))) as ThreadsModule;
    inThread = ((await import(join(DIST, 'ingestion/batch-preparation'))) as PreparationModule).prepareBody;
    DistAppError = ((await import(join(DIST, 'common/app-error'))) as AppErrorModule).AppError;
    threads = new BatchThreads(1); // every batch, however small, to the thread
  });

  afterAll(() => threads.close());

  const plain = (p: PreparedBatch) => ({ ...p, payload: Buffer.from(p.payload).toString('utf8') });

  it('prepares every kind of body exactly as the service thread does', async () => {
    expect(threads.where).toBe('worker');
    const list = events(30);
    const json = JSON.stringify(list);
    const bodies: BatchBody[] = [
      body(json),
      body(JSON.stringify({ events: list })),
      body(list.map((e) => JSON.stringify(e)).join('\n'), { format: 'ndjson' }),
      body(gzipSync(json), { coding: 'gzip' }),
      body(json, { idempotencyKey: 'key-1' }),
      // rrweb's packer: a deflated event as a latin1 string, stored unpacked
      body(JSON.stringify([list[0], deflateSync(JSON.stringify({ ...list[2], v: 'v1' })).toString('latin1')])),
    ];
    for (const b of bodies) {
      const expected = plain(inThread({ ...b, body: new Uint8Array(b.body) }));
      const got = plain(await threads.prepare(b));
      expect(got).toEqual(expected);
    }
    const got = await threads.prepare(body(json));
    expect(got.events).toBe(32);
    expect(got.summary.meta).toEqual({ plan: 'pro', includePii: 'true', ipAddress: '203.0.113.9', userAgent: 'test' });
    expect(got.summary.url).toBe('https://shop.example/ä');
    expect(Buffer.from(got.payload).toString('utf8')).toBe(json);
  });

  it('runs its thread at the nice value given, the service thread unchanged (Linux)', async () => {
    const { BatchThreads } = (await import(join(DIST, 'ingestion/batch-threads'))) as ThreadsModule;
    const nice = (tid: string) => Number(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1].split(' ')[16]);
    const before = new Set(readdirSync('/proc/self/task'));
    const low = new BatchThreads(1, 0, 7);
    try {
      await low.prepare(body(JSON.stringify(events(1))));
      const started = readdirSync('/proc/self/task').filter((t) => !before.has(t));
      expect(started.map(nice)).toContain(7);
      expect(nice(String(process.pid))).toBe(0);
    } finally {
      await low.close();
    }
  });

  it('leaves the body it was given intact (a small one shares the process-wide buffer pool)', async () => {
    const small = Buffer.from(JSON.stringify(events(1)));
    expect(small.buffer.byteLength).toBeGreaterThan(small.length); // pooled
    const before = small.toString();
    await threads.prepare(body(small));
    expect(small.buffer.byteLength).toBeGreaterThan(0);
    expect(small.toString()).toBe(before);
    expect(Buffer.from('still usable').toString()).toBe('still usable');
  });

  it('refuses what the service thread refuses, with the same answer', async () => {
    const refusals: [BatchBody, string][] = [
      [body('[{"type":3}]'), 'bad_request'],
      [body('[1,'), 'bad_request'],
      [body(Buffer.from([0x5b, 0xff, 0x5d])), 'bad_request'],
      [body(Buffer.from('not gzip'), { coding: 'gzip' }), 'bad_request'],
      [body(JSON.stringify(events(3)), { maxBodyBytes: 100 }), 'payload_too_large'],
      [body(JSON.stringify(events(3)), { idempotencyKey: 'no spaces' }), 'bad_request'],
      [body('[]'), 'bad_request'],
    ];
    for (const [b, code] of refusals) {
      let expected: unknown;
      try {
        inThread({ ...b, body: new Uint8Array(b.body) });
      } catch (e) {
        expected = e;
      }
      expect(expected).toBeInstanceOf(DistAppError);
      const got = await threads.prepare(b).catch((e: unknown) => e);
      // Rebuilt in the service's thread as an AppError, which the error filter answers as a 4xx.
      expect(got).toBeInstanceOf(DistAppError);
      const [e, x] = [got as InstanceType<typeof DistAppError>, expected as InstanceType<typeof DistAppError>];
      expect({ code: e.code, message: e.message }).toEqual({ code, message: x.message });
    }
  });

  it('fails only the batch whose thread stopped under it (503, retryable), and serves the next from a new thread', async () => {
    const big = body(JSON.stringify(events(300_000)));
    const internals = threads as unknown as { threads: { worker: { terminate(): Promise<number> } }[] };
    const pending = threads.prepare(big).catch((e: unknown) => e);
    await internals.threads[0].worker.terminate();
    const e = (await pending) as InstanceType<typeof DistAppError>;
    expect(e).toBeInstanceOf(DistAppError);
    expect(e.code).toBe('unavailable');
    expect(e.retryAfterSeconds).toBe(1);
    const next = await threads.prepare(body(JSON.stringify(events(2))));
    expect(next.events).toBe(4);
    expect(internals.threads).toHaveLength(1);
  });
});
