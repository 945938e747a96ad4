// The batch threads as the service runs them: the compiled module (dist/, where the compiled worker
// is) preparing HTTP bodies in a worker thread and storing them in the test stack's JetStream on a
// connection of its own. What a thread stores is byte for byte (payload and summary) what the
// service's thread would, its refusals are the same 4xx, a keyed duplicate comes back with its
// payload, a thread stopping under a batch fails only that batch (503, retryable) and the next one
// is served by a new thread.
import { randomBytes, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { deflateSync, gzipSync } from 'node:zlib';
import { headerJson } from '../../src/domain/batch-summary';
import { JetStreamEventStore } from '../../src/infrastructure/nats/event-store';
import type { NatsClient } from '../../src/infrastructure/nats/nats-connection';
import { H } from '../../src/infrastructure/nats/subjects';
import type { BatchBody, PreparedBatch } from '../../src/ingestion/batch-preparation';
import { natsClient } from '../e2e/projections-fixtures';
import { testEnv } from '../harness/env';

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

const tenantId = `t_threads_${randomBytes(4).toString('hex')}`;

function body(text: string | Uint8Array, more: Partial<BatchBody> = {}): BatchBody {
  return {
    tenantId,
    recordingId: randomUUID(),
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
  let nats: NatsClient;
  let store: JetStreamEventStore;
  const settings = (nice = 0) => ({
    nice,
    nats: { NATS_URL: testEnv().natsUrl },
    publishTimeoutMs: 10_000,
    log: { level: 'warn' as const, format: 'json' as const },
  });

  beforeAll(async () => {
    const { BatchThreads } = (await import(join(DIST, 'ingestion/batch-threads'))) as ThreadsModule;
    inThread = ((await import(join(DIST, 'ingestion/batch-preparation'))) as PreparationModule).prepareBody;
    DistAppError = ((await import(join(DIST, 'common/app-error'))) as AppErrorModule).AppError;
    threads = new BatchThreads(1, 0, settings()); // every batch, however small, to the thread
    nats = await natsClient();
    store = new JetStreamEventStore(nats, 10_000);
  });

  afterAll(async () => {
    await threads.close();
    await nats?.close();
  });

  /** What the service's thread prepares of `b`, and what the thread stored of it (payload, summary header). */
  async function bothWays(b: BatchBody): Promise<{ expected: PreparedBatch; stored: { payload: string; summary: string | undefined } }> {
    const expected = inThread({ ...b, body: new Uint8Array(b.body) });
    const staged = await threads.stage(b);
    expect({ events: staged.events, bytes: staged.bytes, batchId: staged.batchId }).toEqual({
      events: expected.events,
      bytes: expected.payload.length,
      batchId: expected.batchId,
    });
    const r = await staged.append();
    expect(r.duplicate).toBe(false);
    const payload = Buffer.from((await store.storedPayload(b.tenantId, b.recordingId, 'ev', r.seqs))!).toString('utf8');
    const last = await nats.jsm.streams.getMessage('TAPEDECK_EVENTS', { seq: r.seq });
    return { expected, stored: { payload, summary: last.header.get(H.summary) } };
  }

  it('stores every kind of body exactly as the service thread prepares it', async () => {
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
      const { expected, stored } = await bothWays(b);
      expect(stored).toEqual({ payload: Buffer.from(expected.payload).toString('utf8'), summary: headerJson(expected.summary) });
    }
    const { expected, stored } = await bothWays(body(json));
    expect(expected.events).toBe(32);
    expect(expected.summary.meta).toEqual({ plan: 'pro', includePii: 'true', ipAddress: '203.0.113.9', userAgent: 'test' });
    expect(expected.summary.url).toBe('https://shop.example/ä');
    expect(stored.payload).toBe(json);
  });

  it('stores a batch of many messages (chunked), and hands back the payload of a keyed duplicate only', async () => {
    const big = body(JSON.stringify(events(40_000)), { idempotencyKey: 'big-1' });
    const { expected, stored } = await bothWays({ ...big, body: Buffer.from(big.body) }); // each stage moves its body
    expect(expected.payload.length).toBeGreaterThan(2 * 1024 * 1024);
    expect(stored.payload).toBe(Buffer.from(expected.payload).toString('utf8'));
    const again = await (await threads.stage(big)).append();
    expect(again.duplicate).toBe(true);
    expect(again.seqs.length).toBeGreaterThan(2);
    expect(Buffer.from(again.payload!).toString('utf8')).toBe(stored.payload);
    const unkeyed = body(JSON.stringify(events(3)));
    await (await threads.stage({ ...unkeyed, body: Buffer.from(unkeyed.body) })).append();
    const dup = await (await threads.stage(unkeyed)).append();
    expect(dup.duplicate).toBe(true);
    expect(dup.payload).toBeUndefined();
  });

  it('stores nothing of a batch it was told to drop', async () => {
    const b = body(JSON.stringify(events(3)));
    const staged = await threads.stage(b);
    staged.drop();
    await (await threads.stage(body(JSON.stringify(events(1))))).append(); // the thread has taken the drop by then
    expect(await store.messageCounts(b.tenantId, b.recordingId)).toMatchObject({ ev: 0 });
  });

  it('runs its thread at the nice value given, the service thread unchanged (Linux)', async () => {
    const { BatchThreads } = (await import(join(DIST, 'ingestion/batch-threads'))) as ThreadsModule;
    const nice = (tid: string) => Number(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1].split(' ')[16]);
    const before = new Set(readdirSync('/proc/self/task'));
    const low = new BatchThreads(1, 0, settings(7));
    try {
      (await low.stage(body(JSON.stringify(events(1))))).drop();
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
    (await threads.stage(body(small))).drop();
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
      const got = await threads.stage(b).catch((e: unknown) => e);
      // Rebuilt in the service's thread as an AppError, which the error filter answers as a 4xx.
      expect(got).toBeInstanceOf(DistAppError);
      const [e, x] = [got as InstanceType<typeof DistAppError>, expected as InstanceType<typeof DistAppError>];
      expect({ code: e.code, message: e.message }).toEqual({ code, message: x.message });
    }
  });

  it('fails only the batch whose thread stopped under it (503, retryable), and serves the next from a new thread', async () => {
    const big = body(JSON.stringify(events(300_000)));
    const internals = threads as unknown as { threads: { worker: { terminate(): Promise<number> } }[] };
    const pending = threads.stage(big).catch((e: unknown) => e);
    await internals.threads[0].worker.terminate();
    const e = (await pending) as InstanceType<typeof DistAppError>;
    expect(e).toBeInstanceOf(DistAppError);
    expect(e.code).toBe('unavailable');
    expect(e.retryAfterSeconds).toBe(1);
    const next = await threads.stage(body(JSON.stringify(events(2))));
    expect(next.events).toBe(4);
    expect((await next.append()).duplicate).toBe(false);
    expect(internals.threads).toHaveLength(1);
  });
});
