import { malformedQueryEncoding } from './query-encoding';

describe('malformedQueryEncoding', () => {
  it.each([
    '/recordings',
    '/recordings?limit=5',
    '/recordings?metadata[name]=J%C3%BCrgen',
    '/recordings?metadata%5Bcity%5D=%E6%9D%B1%E4%BA%AC&x=%F0%9F%8E%A5',
    '/recordings?metadata[discount]=50%',
    '/recordings?q=%zz',
    '/recordings/%FF?limit=1', // the path is not the query's business
  ])('accepts %s', (url) => {
    expect(malformedQueryEncoding(url)).toBeNull();
  });

  it.each([
    ['/recordings?metadata[plan]=%FF', '%FF'],
    ['/recordings?metadata[%C3]=x', '%C3'],
    ['/statistics?groupBy=%ED%A0%80', '%ED%A0%80'], // a lone surrogate
    ['/recordings?a=%C3%A4&b=%E2%82', '%E2%82'], // truncated
    ['/recordings?x=' + '%C0'.repeat(20), '%C0%C0%C0%C0%C0%C0%C0%C0…'],
  ])('finds the bad run in %s', (url, run) => {
    expect(malformedQueryEncoding(url)).toBe(run);
  });
});
