import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppError } from '../common/app-error';
import type { BatchBody } from './batch-preparation';
import { BatchThreads } from './batch-threads';

// A stand-in for batch-worker.js speaking the same protocol: it names its thread in the batch id and
// answers after 50 ms; a body "bug" fails as a thread's own error, "refuse" as an AppError. It
// "stores" a batch by answering with its text as the payload, and counts what it still holds.
const FAKE_WORKER = `
const { parentPort, threadId } = require('node:worker_threads');
const held = new Map();
parentPort.on('message', (m) => setTimeout(() => {
  if (m.drop) return held.delete(m.id);
  if (m.append) {
    const text = held.get(m.id);
    held.delete(m.id);
    const payload = new TextEncoder().encode(text + ' (' + held.size + ' held)');
    return parentPort.postMessage({ id: m.id, stored: { duplicate: true, seq: 1, seqs: [1], payload } }, [payload.buffer]);
  }
  const text = Buffer.from(m.stage.body).toString();
  if (text === 'bug') return parentPort.postMessage({ id: m.id, error: { message: 'boom' } });
  if (text === 'refuse') return parentPort.postMessage({ id: m.id, error: { code: 'bad_request', message: 'Invalid event at index 0' } });
  held.set(m.id, text);
  parentPort.postMessage({ id: m.id, staged: { events: 1, bytes: text.length, batchId: 'thread ' + threadId } });
}, 50));
`;

const SETTINGS = { nice: 0, nats: { NATS_URL: 'nats://127.0.0.1:1' }, publishTimeoutMs: 1000, log: { level: 'silent' as const, format: 'json' as const } };

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
    const t = new BatchThreads(count, 0, SETTINGS, f);
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
    const staged = await Promise.all([t.stage({ ...batch(''), body: own }), t.stage({ ...batch(''), body: pooled })]);
    staged.forEach((s) => s.drop());
    expect(own.buffer.byteLength).toBe(0); // detached: moved, not copied
    // Staged again (moved before): refused at once, never a message that would not arrive.
    await expect(t.stage({ ...batch(''), body: own })).rejects.toThrow(/detached/);
    expect(pooled.toString()).toBe('["pooled"]');
    expect(neighbour.toString()).toBe('in the same pool');
  });

  it('takes only batches of at least its minimum size (a compressed one counted 8 to 1), and none without threads or the compiled worker', () => {
    const t = new BatchThreads(1, 1000, SETTINGS, file);
    expect(t.takes(batch('x'.repeat(999)))).toBe(false);
    expect(t.takes(batch('x'.repeat(1000)))).toBe(true);
    expect(t.takes({ ...batch('x'.repeat(125)), coding: 'gzip' })).toBe(true);
    expect(t.takes({ ...batch('x'.repeat(124)), coding: 'gzip' })).toBe(false);
    for (const none of [new BatchThreads(0, 0, SETTINGS, file), new BatchThreads(2, 0, SETTINGS, join(dir, 'missing.js'))]) {
      expect(none.where).toBe('service');
      expect(none.takes(batch('x'.repeat(5000)))).toBe(false);
    }
  });

  it('keeps a staged batch in its thread until it is appended or dropped', async () => {
    const t = threadsOf(1);
    const [a, b, c] = await Promise.all(['[1]', '[2]', '[3]'].map((x) => t.stage(batch(x))));
    expect(a).toMatchObject({ events: 1, bytes: 3 });
    b.drop();
    b.drop(); // once is enough, twice is harmless
    const stored = await a.append();
    expect(Buffer.from(stored.payload!).toString()).toBe('[1] (1 held)'); // c is still held, b is not
    expect(stored).toMatchObject({ duplicate: true, seqs: [1] });
    await expect(a.append()).rejects.toThrow(/once/);
    expect(Buffer.from((await c.append()).payload!).toString()).toBe('[3] (0 held)');
  });

  it('spreads batches in flight over its threads, never more than it may start', async () => {
    const t = threadsOf(2);
    expect(t.where).toBe('worker');
    const staged = await Promise.all(Array.from({ length: 6 }, (_, i) => t.stage(batch(`[${i}]`))));
    staged.forEach((s) => s.drop());
    const ids = staged.map((p) => p.batchId);
    expect(new Set(ids).size).toBe(2);
    expect(ids.filter((id) => id === ids[0])).toHaveLength(3);
    // One at a time: the first thread serves them all.
    const one = [];
    for (let i = 0; i < 3; i++) {
      const s = await t.stage(batch('[1]'));
      s.drop();
      one.push(s.batchId);
    }
    expect(new Set(one).size).toBe(1);
  });

  it("answers a thread's refusal as an AppError and its own failure as a plain error", async () => {
    const t = threadsOf(1);
    const refused = await t.stage(batch('refuse')).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ code: 'bad_request', message: 'Invalid event at index 0' });
    const bug = await t.stage(batch('bug')).catch((e: unknown) => e);
    expect(bug).not.toBeInstanceOf(AppError);
    expect((bug as Error).message).toBe('Batch thread: boom');
    expect(Buffer.from((await (await t.stage(batch('[2]'))).append()).payload!).toString()).toBe('[2] (0 held)');
  });

  it('fails the append of a batch whose thread stopped (503, retryable), and stages the next in a new thread', async () => {
    const t = threadsOf(1);
    const staged = await t.stage(batch('[1]'));
    await (t as unknown as { threads: { worker: { terminate(): Promise<number> } }[] }).threads[0].worker.terminate();
    const e = (await staged.append().catch((x: unknown) => x)) as AppError;
    expect(e).toBeInstanceOf(AppError);
    expect({ code: e.code, retryAfterSeconds: e.retryAfterSeconds }).toEqual({ code: 'unavailable', retryAfterSeconds: 1 });
    const next = await t.stage(batch('[2]'));
    expect(next.batchId).not.toBe(staged.batchId);
    next.drop();
  });
});
