import { KeyedQueue } from './keyed-queue';

describe('KeyedQueue', () => {
  it('runs work of one key one at a time in call order, other keys beside it, past failures', async () => {
    const q = new KeyedQueue();
    const log: string[] = [];
    const step =
      (name: string, ms: number, fail = false) =>
      async () => {
        log.push(`${name}+`);
        await new Promise((r) => setTimeout(r, ms));
        log.push(`${name}-`);
        if (fail) throw new Error(name);
        return name;
      };
    const results = await Promise.allSettled([q.run('a', step('a1', 20, true)), q.run('a', step('a2', 1)), q.run('b', step('b1', 5))]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled', 'fulfilled']);
    expect(log).toEqual(['a1+', 'b1+', 'b1-', 'a1-', 'a2+', 'a2-']);
  });
});
