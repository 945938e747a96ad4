import { OverLimit } from './tenant-rates';
import { MemoryDocuments } from './testing/memory-documents';
import { ConcurrentSlots, HEARTBEAT_MS, othersOpen, RENDERS, STALE_MS, WEBSOCKETS } from './concurrent-slots';

describe('ConcurrentSlots', () => {
  let slots: ConcurrentSlots[] = [];
  const make = (docs: MemoryDocuments, onError = jest.fn()) => {
    const s = new ConcurrentSlots(WEBSOCKETS, docs, onError);
    slots.push(s);
    return s;
  };
  afterEach(() => {
    slots.forEach((s) => s.stop());
    slots = [];
    jest.useRealTimers();
  });

  it('holds the limit across instances and frees a slot when a socket closes', async () => {
    const docs = new MemoryDocuments();
    const [a, b] = [make(docs), make(docs)];
    const releaseA = await a.acquire('t', 2);
    await b.acquire('t', 2);
    const refusal = await a.acquire('t', 2).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(OverLimit);
    expect(refusal).toMatchObject({ limit: 'webSockets', retryAfterSeconds: 5 });
    expect((refusal as Error).message).toMatch(/may keep 2 open WebSockets \(limit webSockets\)/);
    await expect(b.acquire('t', 2)).rejects.toThrow(OverLimit);
    // Another tenant has its own slots.
    await expect(b.acquire('u', 2)).resolves.toBeInstanceOf(Function);
    releaseA();
    releaseA(); // once only
    await new Promise((r) => setTimeout(r, 300)); // the close is written back
    await expect(b.acquire('t', 2)).resolves.toBeInstanceOf(Function);
    await expect(a.acquire('t', 2)).rejects.toThrow(OverLimit);
  });

  it('admits concurrent upgrades of one instance up to the limit exactly', async () => {
    const docs = new MemoryDocuments();
    const a = make(docs);
    const results = await Promise.allSettled(Array.from({ length: 5 }, () => a.acquire('t', 3)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
    expect(a.openHere('t')).toBe(3);
  });

  it('ignores the count of an instance that stopped confirming it', () => {
    const now = 1_000_000;
    const doc = { a: { n: 3, at: now - 1000 }, dead: { n: 5, at: now - STALE_MS - 1 }, me: { n: 9, at: now } };
    expect(othersOpen(doc, 'me', now)).toBe(3);
  });

  it('confirms its counts on a heartbeat, so other instances keep counting them', async () => {
    jest.useFakeTimers({ now: 1_000_000, doNotFake: ['setImmediate'] });
    const docs = new MemoryDocuments();
    const [a, b] = [make(docs), make(docs)];
    await a.acquire('t', 1);
    for (let t = 0; t < STALE_MS + HEARTBEAT_MS; t += HEARTBEAT_MS) {
      jest.advanceTimersByTime(HEARTBEAT_MS);
      await new Promise((r) => setImmediate(r));
      await new Promise((r) => setImmediate(r));
    }
    await expect(b.acquire('t', 1)).rejects.toThrow(OverLimit);
    a.stop(); // a dies: no more confirmations
    jest.advanceTimersByTime(STALE_MS);
    await expect(b.acquire('t', 1)).resolves.toBeInstanceOf(Function);
  });

  it("falls back to the instance's own count when the shared store fails", async () => {
    const docs = new MemoryDocuments();
    docs.failing = true;
    const failed = jest.fn();
    const a = make(docs, failed);
    await a.acquire('t', 1);
    await expect(a.acquire('t', 1)).rejects.toThrow(OverLimit);
    expect(failed).toHaveBeenCalled();
  });

  it('counts renders apart from WebSockets, and refuses them naming the renders limit with a short retry', async () => {
    const docs = new MemoryDocuments();
    const sockets = make(docs);
    const renders = new ConcurrentSlots(RENDERS, docs, jest.fn());
    slots.push(renders);
    await sockets.acquire('t', 1);
    const done = await renders.acquire('t', 1);
    const refusal = await renders.acquire('t', 1).catch((e: unknown) => e);
    expect(refusal).toMatchObject({ limit: 'renders', retryAfterSeconds: 1 });
    expect((refusal as Error).message).toMatch(/may have 1 renders in progress or waiting \(limit renders\)/);
    expect([docs.get('renders.t'), docs.get('ws.t')]).toEqual([
      { [renders.instance]: expect.objectContaining({ n: 1 }) },
      { [sockets.instance]: expect.objectContaining({ n: 1 }) },
    ]);
    done();
    await new Promise((r) => setTimeout(r, 300));
    await expect(renders.acquire('t', 1)).resolves.toBeInstanceOf(Function);
  });
});
