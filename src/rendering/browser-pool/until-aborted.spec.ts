import { untilAborted } from './until-aborted';

describe('untilAborted', () => {
  it('passes the result through when not aborted', async () => {
    await expect(untilAborted(Promise.resolve(7), new AbortController().signal)).resolves.toBe(7);
    await expect(untilAborted(Promise.reject(new Error('x')), new AbortController().signal)).rejects.toThrow('x');
  });

  it('stops waiting for work that never settles once aborted', async () => {
    const ac = new AbortController();
    const waiting = untilAborted(new Promise(() => undefined), ac.signal);
    ac.abort();
    await expect(waiting).rejects.toThrow(/aborted/);
    await expect(untilAborted(Promise.resolve(1), ac.signal)).rejects.toThrow(/aborted/);
  });
});
