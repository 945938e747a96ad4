import { mergeVary } from './reply-headers';

describe('mergeVary', () => {
  it.each([
    [undefined, 'Accept', 'Accept'],
    ['Origin', 'Accept', 'Origin, Accept'],
    ['Origin', 'accept', 'Origin, accept'],
    ['Origin, Accept', 'Accept', 'Origin, Accept'],
    ['origin', 'Origin, Accept', 'origin, Accept'],
    ['', 'Accept', 'Accept'],
    ['*', 'Accept', '*'],
    ['Origin', '*', '*'],
  ])('%p plus %p is %p', (existing, added, merged) => {
    expect(mergeVary(existing, added)).toBe(merged);
  });
});
