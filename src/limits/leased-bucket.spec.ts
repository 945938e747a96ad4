import { LeasedBucket } from './leased-bucket';
import { MemoryDocuments } from './testing/memory-documents';

const rate = { perSecond: 1000, burst: 1000 };

describe('LeasedBucket', () => {
  afterEach(() => jest.useRealTimers());

  it('leases a tenth of a second of the rate and spends it without asking again', async () => {
    const docs = new MemoryDocuments();
    const b = new LeasedBucket(docs, 'rate.t.x', jest.fn());
    expect(await b.take(10, rate)).toBe(0);
    expect(docs.writes).toBe(1);
    for (let i = 0; i < 10; i++) expect(await b.take(10, rate)).toBe(0);
    expect(docs.writes).toBe(1);
    expect(docs.get<{ tokens: number }>('rate.t.x')?.tokens).toBeCloseTo(890, 0);
  });

  it('holds the rate across instances: two buckets on one document share it', async () => {
    jest.useFakeTimers({ now: 1_000_000, doNotFake: ['setImmediate'] });
    const docs = new MemoryDocuments();
    const a = new LeasedBucket(docs, 'rate.t.x', jest.fn());
    const b = new LeasedBucket(docs, 'rate.t.x', jest.fn());
    let taken = 0;
    // Two seconds at 50 ms steps, each instance trying 100 tokens per step (4000/s offered against 1000/s).
    for (let step = 0; step < 40; step++) {
      for (const inst of [a, b]) if ((await inst.take(100, rate)) === 0) taken += 100;
      jest.advanceTimersByTime(50);
    }
    // The burst (1000) plus two seconds of the rate, within one lease per instance of slack.
    expect(taken).toBeGreaterThanOrEqual(2800);
    expect(taken).toBeLessThanOrEqual(3000 + 2 * 100);
  });

  it('remembers a refusal until the bucket refills, refusing without a round trip', async () => {
    jest.useFakeTimers({ now: 1_000_000, doNotFake: ['setImmediate'] });
    const docs = new MemoryDocuments();
    docs.set('rate.t.x', { tokens: 0, at: 1_000_000 });
    const b = new LeasedBucket(docs, 'rate.t.x', jest.fn());
    expect(await b.take(200, rate)).toBeCloseTo(0.2);
    const writes = docs.writes;
    expect(b.blockedFor()).toBeCloseTo(0.2);
    expect(await b.take(1, rate)).toBeCloseTo(0.2);
    expect(docs.writes).toBe(writes);
    jest.advanceTimersByTime(200);
    expect(b.blockedFor()).toBe(0);
    expect(await b.take(200, rate)).toBe(0);
  });

  it('shares one lease request among concurrent takers', async () => {
    const docs = new MemoryDocuments();
    const b = new LeasedBucket(docs, 'rate.t.x', jest.fn());
    expect(await Promise.all(Array.from({ length: 10 }, () => b.take(5, rate)))).toEqual(Array(10).fill(0));
    expect(docs.writes).toBe(1);
  });

  it('gives refunded tokens to the next taker', async () => {
    const docs = new MemoryDocuments();
    docs.set('rate.t.x', { tokens: 100, at: Date.now() + 60_000 });
    const b = new LeasedBucket(docs, 'rate.t.x', jest.fn());
    expect(await b.take(100, rate)).toBe(0);
    expect(await b.take(100, rate)).toBeGreaterThan(0);
    b.refund(100);
    expect(await b.take(100, rate)).toBe(0);
  });

  it('lets requests through while the shared store fails, and says so', async () => {
    const docs = new MemoryDocuments();
    docs.failing = true;
    const failed = jest.fn();
    const b = new LeasedBucket(docs, 'rate.t.x', failed);
    expect(await b.take(5000, rate)).toBe(0);
    expect(await b.take(5000, rate)).toBe(0);
    expect(failed).toHaveBeenCalledTimes(1);
  });
});
