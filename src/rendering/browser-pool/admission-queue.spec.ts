import { AdmissionQueue } from './admission-queue';

const tick = () => new Promise((r) => setImmediate(r));

describe('AdmissionQueue', () => {
  it('hands freed slots to owners in turn, first come first served within an owner', async () => {
    const q = new AdmissionQueue({ concurrency: 1, queueLimit: 10, waitMs: 10_000 });
    await q.acquire('a');
    const granted: string[] = [];
    const wait = (name: string, owner: string) => q.acquire(owner).then(() => granted.push(name));
    // Tenant a floods the queue first; b and c each ask once, later.
    const all = [wait('a1', 'a'), wait('a2', 'a'), wait('a3', 'a'), wait('b1', 'b'), wait('a4', 'a'), wait('c1', 'c'), wait('b2', 'b')];
    expect(q.queueLength).toBe(7);
    let holder = 'a';
    for (let i = 0; i < 7; i++) {
      q.release(holder);
      await tick();
      holder = granted[granted.length - 1][0];
    }
    await Promise.all(all);
    expect(granted).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'a3', 'a4']);
    expect(q.queueLength).toBe(0);
    expect(q.inFlight).toBe(1);
    q.release('a');
    expect(q.inFlight).toBe(0);
  });

  it('gives a freed slot to the waiting owner that holds the fewest', async () => {
    const q = new AdmissionQueue({ concurrency: 2, queueLimit: 10, waitMs: 10_000 });
    await q.acquire('a');
    await q.acquire('a');
    const granted: string[] = [];
    const all = [q.acquire('a').then(() => granted.push('a3')), q.acquire('b').then(() => granted.push('b1'))];
    q.release('a');
    await tick();
    expect(granted).toEqual(['b1']); // a still holds one slot, b none
    q.release('a');
    await Promise.all(all);
    expect(granted).toEqual(['b1', 'a3']);
  });

  it('counts every owner against one queue limit, and forgets a waiter that gave up', async () => {
    const q = new AdmissionQueue({ concurrency: 1, queueLimit: 2, waitMs: 30 });
    await q.acquire('a');
    const late = q.acquire('a');
    const other = q.acquire('b');
    await expect(q.acquire('c')).rejects.toMatchObject({ code: 'unavailable' });
    await expect(late).rejects.toMatchObject({ code: 'unavailable' });
    await expect(other).rejects.toMatchObject({ code: 'unavailable' });
    expect(q.queueLength).toBe(0);
    expect(q.rejected).toBe(3);
    q.release();
    expect(q.inFlight).toBe(0);
    await q.acquire(); // no owner: the same rules
    expect(q.inFlight).toBe(1);
  });
});
