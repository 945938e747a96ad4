import { chunkBounds } from './event-writer';

describe('chunkBounds', () => {
  const MB = 1024 * 1024;
  const size = MB - 8 * 1024;

  it('keeps a batch that fits, with its summary, in one message', () => {
    expect(chunkBounds(1000, MB, 200)).toEqual([[0, 1000]]);
    expect(chunkBounds(0, MB, 200)).toEqual([[0, 0]]);
    expect(chunkBounds(size - 200, MB, 200)).toEqual([[0, size - 200]]);
  });

  it('fills every message but the last, which is cut shorter by the summary header, covering every byte once', () => {
    const total = 3 * MB;
    const bounds = chunkBounds(total, MB, 60_000);
    for (let i = 1; i < bounds.length; i++) expect(bounds[i][0]).toBe(bounds[i - 1][1]);
    expect(bounds[0][0]).toBe(0);
    expect(bounds[bounds.length - 1][1]).toBe(total);
    expect(bounds.slice(0, -1).every(([a, b]) => b - a === size)).toBe(true);
    // Every message, with the summary on the last, stays within max_payload less the headroom.
    expect(Math.max(...bounds.map(([a, b], i) => b - a + (i === bounds.length - 1 ? 60_000 : 0)))).toBeLessThanOrEqual(size);
  });

  it('never leaves the last message empty, even when the rest fills a message exactly', () => {
    const bounds = chunkBounds(size, MB, 200);
    expect(bounds).toEqual([
      [0, size - 1],
      [size - 1, size],
    ]);
    expect(chunkBounds(2 * size, MB, 200)).toEqual([
      [0, size],
      [size, 2 * size - 1],
      [2 * size - 1, 2 * size],
    ]);
  });

  it('moves to a second message exactly when the summary no longer fits beside the data', () => {
    expect(chunkBounds(size - 199, MB, 200)).toEqual([
      [0, size - 200],
      [size - 200, size - 199],
    ]);
  });
});
