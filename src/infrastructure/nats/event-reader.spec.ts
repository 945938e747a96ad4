import { pullSize } from './event-reader';

describe('pullSize', () => {
  it('keeps about 1 MiB per pull, between 16 and 256 messages, and 64 when sizes are unknown', () => {
    expect(pullSize(13_000)).toBe(80);
    expect(pullSize(1_000_000)).toBe(16);
    expect(pullSize(100)).toBe(256);
    expect(pullSize(undefined)).toBe(64);
  });
});
