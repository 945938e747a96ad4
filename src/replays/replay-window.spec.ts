import type { ReadEvent } from '../domain/rrweb-event';
import { ResolvedWindow, windowOfReplay } from './replay-window';

const ev = (type: number, timestamp: number): ReadEvent => ({ type, timestamp, data: {}, originalTimestamp: timestamp });
// Page views at 0 (lead-in 0, Meta 1, FullSnapshot 2) and 1000 (Meta, FullSnapshot); a checkout at 500.
const replay = [ev(0, 0), ev(4, 1), ev(2, 2), ev(3, 100), ev(4, 500), ev(2, 500), ev(3, 600), ev(4, 1000), ev(2, 1001), ev(3, 1100)];

async function cut(w: ResolvedWindow): Promise<number[]> {
  async function* source() {
    yield* replay;
  }
  const out: number[] = [];
  for await (const e of windowOfReplay(source(), w)) out.push(e.timestamp);
  return out;
}

describe('windowOfReplay', () => {
  it('begins at the Meta of the last keyframe at or before from and ends at to', async () => {
    expect(await cut({ from: 700, to: 1001 })).toEqual([500, 500, 600, 1000, 1001]);
    expect(await cut({ from: 1000 })).toEqual([1000, 1001, 1100]);
    expect(await cut({ from: 50, limit: 3 })).toEqual([1, 2, 100]);
  });

  it('begins with the first event when no keyframe is at or before from, and takes limit events', async () => {
    expect(await cut({ from: 0 })).toEqual(replay.map((e) => e.timestamp));
    expect(await cut({ limit: 2 })).toEqual([0, 1]);
    expect(await cut({ from: 5000 })).toEqual([1000, 1001, 1100]);
  });
});
