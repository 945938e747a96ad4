import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { AppError } from '../common/app-error';
import { ReadThread } from './read-thread';

// A stand-in for read-worker.js speaking the same protocol, with the same rule of one chunk per ask.
// Recording "chunks-N" is N chunks of 100 KiB, each filled with its index's digit and starting with
// the asks the thread had got for that read ("2 asks"); "missing" fails as an AppError, "bug" as the
// thread's own error, "exit" stops the thread; "seen" answers with what the thread was told of
// earlier reads (asks and aborts, by recording).
const FAKE_WORKER = `
const { parentPort, threadId } = require('node:worker_threads');
const reads = new Map();
const seen = {};
const send = (id, text, size) => {
  const chunk = new Uint8Array(Math.max(size, text.length)).fill(0x30 + (text.charCodeAt(0) % 10));
  chunk.set(new TextEncoder().encode(text));
  parentPort.postMessage({ id, chunk }, [chunk.buffer]);
};
const next = (id) => {
  const r = reads.get(id);
  if (!r || r.credit === 0) return;
  r.credit--;
  if (r.sent === r.total) {
    reads.delete(id);
    return parentPort.postMessage({ id, end: true });
  }
  send(id, String(r.sent++ % 10) + ' ' + r.asks + ' asks', 100 * 1024);
};
parentPort.on('message', (m) => {
  if (m.read) {
    const rec = m.read.recordingId;
    seen[rec] = { asks: 1, aborts: 0 };
    if (rec === 'missing') return parentPort.postMessage({ id: m.id, error: { code: 'not_found', message: 'Recording not found' } });
    if (rec === 'bug') return parentPort.postMessage({ id: m.id, error: { message: 'boom' } });
    if (rec === 'exit') return process.exit(1);
    if (rec === 'crash') return setTimeout(() => { throw new Error('crash'); }, 10);
    if (rec === 'seen') {
      send(m.id, JSON.stringify({ threadId, seen }), 0);
      return parentPort.postMessage({ id: m.id, end: true });
    }
    reads.set(m.id, { rec, total: Number(rec.split('-')[1]), sent: 0, credit: 1, asks: 1 });
    return next(m.id);
  }
  const r = reads.get(m.id);
  if (m.abort) {
    if (r) seen[r.rec].aborts++;
    return reads.delete(m.id);
  }
  if (!r) return;
  r.credit++;
  r.asks++;
  seen[r.rec].asks = r.asks;
  next(m.id);
});
`;

const SETTINGS = { nice: 0, nats: { NATS_URL: 'nats://127.0.0.1:1' }, publishTimeoutMs: 1000, log: { level: 'silent' as const, format: 'json' as const } };

async function text(body: Readable): Promise<string> {
  const parts: Buffer[] = [];
  for await (const c of body) parts.push(c as Buffer);
  return Buffer.concat(parts).toString('latin1');
}

const settle = () => new Promise((r) => setTimeout(r, 100));

describe('ReadThread', () => {
  let dir: string;
  let file: string;
  const open: ReadThread[] = [];
  const thread = () => {
    const t = new ReadThread(SETTINGS, file);
    open.push(t);
    return t;
  };
  const seen = async (t: ReadThread) =>
    JSON.parse((await text(t.stream({ tenantId: 't', recordingId: 'seen' }))).replace(/\0+$/, '')) as {
      threadId: number;
      seen: Record<string, { asks: number; aborts: number }>;
    };

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'read-thread-'));
    file = join(dir, 'worker.js');
    writeFileSync(file, FAKE_WORKER);
  });

  afterAll(async () => {
    await Promise.all(open.map((t) => t.close()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('is there only with the compiled worker', () => {
    expect(ReadThread.available(file)).toBe(true);
    expect(ReadThread.available(join(dir, 'missing.js'))).toBe(false);
  });

  it('passes on every chunk in order, and asks the thread for the next only as the response takes them', async () => {
    const t = thread();
    const body = t.stream({ tenantId: 't', recordingId: 'chunks-12' });
    body.pause();
    body.on('readable', () => undefined); // buffering up to its high-water mark, nothing taken
    await settle();
    // 256 KiB buffered at most: three chunks of 100 KiB asked for, not twelve.
    expect((await seen(t)).seen['chunks-12'].asks).toBeLessThanOrEqual(3);
    body.removeAllListeners('readable');
    const all = await text(body);
    expect(all).toHaveLength(12 * 100 * 1024);
    const starts = Array.from({ length: 12 }, (_, i) => all.slice(i * 100 * 1024, i * 100 * 1024 + 1));
    expect(starts.join('')).toBe('012345678901');
    expect((await seen(t)).seen['chunks-12'].asks).toBe(13); // one per chunk, and one for the end
  });

  it("tells the thread to stop a read whose response is gone or whose client's signal aborted", async () => {
    const t = thread();
    const destroyed = t.stream({ tenantId: 't', recordingId: 'chunks-50' });
    await new Promise((r) => destroyed.once('data', r));
    destroyed.destroy();
    const ac = new AbortController();
    const aborted = t.stream({ tenantId: 't', recordingId: 'chunks-60' }, ac.signal);
    await new Promise((r) => aborted.once('data', r));
    ac.abort();
    await settle();
    expect(aborted.destroyed).toBe(true);
    const s = (await seen(t)).seen;
    expect(s['chunks-50'].aborts).toBe(1);
    expect(s['chunks-60'].aborts).toBe(1);
    expect(s['chunks-50'].asks).toBeLessThan(10);
  });

  it("fails a read with the thread's AppError (404 before any byte) or, for its own failure, a plain error", async () => {
    const t = thread();
    const missing = (await text(t.stream({ tenantId: 't', recordingId: 'missing' })).catch((e: unknown) => e)) as AppError;
    expect(missing).toBeInstanceOf(AppError);
    expect({ code: missing.code, message: missing.message }).toEqual({ code: 'not_found', message: 'Recording not found' });
    const bug = (await text(t.stream({ tenantId: 't', recordingId: 'bug' })).catch((e: unknown) => e)) as Error;
    expect(bug).not.toBeInstanceOf(AppError);
    expect(bug.message).toBe('Read thread: boom');
    expect(await text(t.stream({ tenantId: 't', recordingId: 'chunks-1' }))).toMatch(/^0 1 asks/);
  });

  it('fails the reads of a thread that stopped (503, retryable), and starts a new thread for the next', async () => {
    const t = thread();
    const before = (await seen(t)).threadId;
    const waiting = t.stream({ tenantId: 't', recordingId: 'chunks-1000' });
    await new Promise((r) => waiting.once('data', r));
    const failed = text(waiting).catch((e: unknown) => e);
    const stopped = (await text(t.stream({ tenantId: 't', recordingId: 'exit' })).catch((e: unknown) => e)) as AppError;
    for (const e of [stopped, (await failed) as AppError]) {
      expect(e).toBeInstanceOf(AppError);
      expect({ code: e.code, retryAfterSeconds: e.retryAfterSeconds }).toEqual({ code: 'unavailable', retryAfterSeconds: 1 });
    }
    expect((await seen(t)).threadId).not.toBe(before);
  });

  it("keeps a read started after a thread failed out of that thread's end (its 'error', then its 'exit')", async () => {
    const t = thread();
    const failed = (await text(t.stream({ tenantId: 't', recordingId: 'crash' })).catch((e: unknown) => e)) as AppError;
    expect(failed).toMatchObject({ code: 'unavailable' });
    // Started at once, in a new thread, while the failed one is still ending.
    expect(await text(t.stream({ tenantId: 't', recordingId: 'chunks-3' }))).toMatch(/^0 1 asks/);
  });
});
