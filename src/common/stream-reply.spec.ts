import { acceptsGzip } from './stream-reply';

describe('acceptsGzip', () => {
  it.each([
    ['gzip, deflate, br, zstd', true], // what Chromium sends
    ['gzip', true],
    ['x-gzip', true],
    ['br;q=1.0, gzip;q=0.8, *;q=0.1', true],
    ['*', true],
    ['GZIP', true],
    ['', false],
    [undefined, false],
    ['identity', false],
    ['br', false],
    ['gzip;q=0', false],
    ['gzip;q=0.000, *', false],
    ['*;q=0', false],
    ['deflate, *;q=0.5', true],
  ])('%p → %p', (header, expected) => {
    expect(acceptsGzip(header)).toBe(expected);
  });
});
