import { pathSegment } from './path-segment';

describe('pathSegment', () => {
  it.each([
    ['.', '%2E'],
    ['..', '%2E%2E'],
    ['...', '...'],
    ['.a', '.a'],
    ['a..', 'a..'],
    ['user 42', 'user%2042'],
    ['a/b', 'a%2Fb'],
    ['%2E', '%252E'],
    ['ü', '%C3%BC'],
  ])('%p is written %p', (value, segment) => {
    expect(pathSegment(value)).toBe(segment);
  });

  it.each(['.', '..', '...', 'a/../b', 'user 42'])('%p is never a literal dot-segment and decodes back to itself', (value) => {
    const segment = pathSegment(value);
    expect(segment).not.toMatch(/^\.\.?$/);
    expect(segment).not.toContain('/');
    expect(decodeURIComponent(segment)).toBe(value);
  });
});
