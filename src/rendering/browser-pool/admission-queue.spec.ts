import { ACTIVE_OWNER_MS, AdmissionQueue } from './admission-queue';

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

  it('tells whoever waits for it when no slot is held or waited for', async () => {
    const q = new AdmissionQueue({ concurrency: 1, queueLimit: 5, waitMs: 30 });
    let idle = 0;
    await q.whenIdle(); // idle already: at once
    await q.acquire('a');
    const waiting = q.acquire('b');
    void q.whenIdle().then(() => idle++);
    q.release('a'); // b takes the slot: not idle
    await waiting;
    await tick();
    expect(idle).toBe(0);
    const gaveUp = q.acquire('c').catch(() => 'refused');
    q.release('b'); // c takes it
    await gaveUp;
    await tick();
    expect(idle).toBe(0);
    const timedOut = q.acquire('d').catch(() => 'refused'); // waits 30 ms behind c, then gives up
    expect(await timedOut).toBe('refused');
    await tick();
    expect(idle).toBe(0); // c still holds its slot
    q.release('c');
    await tick();
    expect(idle).toBe(1);
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

  it('keeps one slot for other owners while more than one renders, and gives a lone owner every slot', async () => {
    const now = jest.spyOn(Date, 'now').mockReturnValue(1_000_000);
    try {
      const q = new AdmissionQueue({ concurrency: 2, queueLimit: 10, waitMs: 600_000 });
      await q.acquire('a');
      await q.acquire('a'); // alone: both slots
      const granted: string[] = [];
      const b1 = q.acquire('b').then(() => granted.push('b1'));
      q.release('a');
      await b1;
      const a3 = q.acquire('a').then(() => granted.push('a3'));
      q.release('b');
      await tick();
      // A free slot, but a already holds one and b rendered a moment ago: the slot waits for b.
      expect(granted).toEqual(['b1']);
      expect(q.inFlight).toBe(1);
      await q.acquire('b'); // at once, no render of a's to wait for
      q.release('a');
      await a3;
      expect(granted).toEqual(['b1', 'a3']);
      q.release('b');
      q.release('a');
      // A minute after b last asked, a renders alone again and may hold both slots.
      now.mockReturnValue(1_000_000 + ACTIVE_OWNER_MS + 1);
      await q.acquire('a');
      await q.acquire('a');
      expect(q.inFlight).toBe(2);
      expect(q.queueLength).toBe(0);
    } finally {
      now.mockRestore();
    }
  });

  it('hands several freed slots out at once when an owner may take them again', async () => {
    const now = jest.spyOn(Date, 'now').mockReturnValue(5_000_000);
    try {
      const q = new AdmissionQueue({ concurrency: 3, queueLimit: 10, waitMs: 600_000 });
      await q.acquire('b');
      now.mockReturnValue(5_000_000 + ACTIVE_OWNER_MS / 2);
      await q.acquire('a');
      await q.acquire('a'); // b still counts: a gets two of three
      const waiting = [q.acquire('a'), q.acquire('a')];
      expect(q.queueLength).toBe(2);
      q.release('b');
      await tick();
      expect(q.queueLength).toBe(2); // the freed slot stays for others while b counts as rendering
      now.mockReturnValue(5_000_000 + ACTIVE_OWNER_MS + 1);
      q.release('a'); // b no longer counts: both free slots go to a's waiters
      await Promise.all(waiting);
      expect(q.inFlight).toBe(3);
    } finally {
      now.mockRestore();
    }
  });
});
