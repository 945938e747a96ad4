import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppError } from '../common/app-error';
import type { BatchBody } from './batch-preparation';
import { BatchThreads } from './batch-threads';

// A stand-in for batch-worker.js speaking the same protocol: it names its thread in the batch id and
// answers after 50 ms; a body "bug" fails as a thread's own error, "refuse" as an AppError.
const FAKE_WORKER = `
const { parentPort, threadId } = require('node:worker_threads');
parentPort.on('message', (m) => setTimeout(() => {
  const text = Buffer.from(m.batch.body).toString();
  if (text === 'bug') return parentPort.postMessage({ id: m.id, error: { message: 'boom' } });
  if (text === 'refuse') return parentPort.postMessage({ id: m.id, error: { code: 'bad_request', message: 'Invalid event at index 0' } });
  const payload = new TextEncoder().encode(text);
  parentPort.postMessage({ id: m.id, batch: { events: 1, payload, batchId: 'thread ' + threadId, summary: {} } }, [payload.buffer]);
}, 50));
`;

const batch = (text: string): BatchBody => ({
  tenantId: 't',
  recordingId: 'r',
  body: Buffer.from(text),
  coding: 'identity',
  format: 'json',
  maxBodyBytes: 1 << 20,
  maxEventBytes: 1 << 20,
  client: {},
});

describe('BatchThreads', () => {
  let dir: string;
  let file: string;
  const open: BatchThreads[] = [];
  const threadsOf = (count: number, f = file) => {
    const t = new BatchThreads(count, 0, 0, f);
    open.push(t);
    return t;
  };

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'batch-threads-'));
    file = join(dir, 'worker.js');
    writeFileSync(file, FAKE_WORKER);
  });

  afterAll(async () => {
    await Promise.all(open.map((t) => t.close()));
    rmSync(dir, { recursive: true, force: true });
  });

  it("moves a body that is its buffer's only content to the thread, and copies one in a shared buffer", async () => {
    const t = threadsOf(1);
    const own = Buffer.alloc(5000, 0x20);
    own.write('["own"]');
    const pooled = Buffer.from('["pooled"]');
    const neighbour = Buffer.from('in the same pool');
    expect(pooled.buffer).toBe(neighbour.buffer);
    await Promise.all([t.prepare({ ...batch(''), body: own }), t.prepare({ ...batch(''), body: pooled })]);
    expect(own.buffer.byteLength).toBe(0); // detached: moved, not copied
    expect(pooled.toString()).toBe('["pooled"]');
    expect(neighbour.toString()).toBe('in the same pool');
  });

  it('prepares in the service thread with no threads, or when the compiled worker is missing', async () => {
    for (const t of [threadsOf(0), threadsOf(2, join(dir, 'missing.js'))]) {
      expect(t.where).toBe('service');
      const prepared = await t.prepare(batch('[{"type":4,"timestamp":1,"data":{}}]'));
      expect(prepared.events).toBe(1);
      await expect(t.prepare(batch('[{"type":4}]'))).rejects.toThrow(/Invalid event at index 0/);
    }
  });

  it('spreads batches in flight over its threads, never more than it may start', async () => {
    const t = threadsOf(2);
    expect(t.where).toBe('worker');
    const ids = (await Promise.all(Array.from({ length: 6 }, (_, i) => t.prepare(batch(`[${i}]`))))).map((p) => p.batchId);
    expect(new Set(ids).size).toBe(2);
    expect(ids.filter((id) => id === ids[0])).toHaveLength(3);
    // One at a time: the first thread serves them all.
    const one = [];
    for (let i = 0; i < 3; i++) one.push((await t.prepare(batch('[1]'))).batchId);
    expect(new Set(one).size).toBe(1);
  });

  it("answers a thread's refusal as an AppError and its own failure as a plain error", async () => {
    const t = threadsOf(1);
    const refused = await t.prepare(batch('refuse')).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ code: 'bad_request', message: 'Invalid event at index 0' });
    const bug = await t.prepare(batch('bug')).catch((e: unknown) => e);
    expect(bug).not.toBeInstanceOf(AppError);
    expect((bug as Error).message).toBe('Batch thread: boom');
    expect(Buffer.from((await t.prepare(batch('[2]'))).payload).toString()).toBe('[2]');
  });
});
