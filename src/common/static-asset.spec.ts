import { conditionalGet, etagMatches, staticAsset, strongEtag } from './static-asset';

describe('etagMatches', () => {
  // Every case the SDK route and the screenshot route were specified with.
  it.each([
    [undefined, false],
    ['"abc"', true],
    ['W/"abc"', true],
    ['"x", "abc"', true],
    ['*', true],
    ['"abd"', false],
    ['"ab"', false],
    ['abc', false],
  ])('If-None-Match %p -> %p', (header, expected) => {
    expect(etagMatches(header, '"abc"')).toBe(expected);
  });

  it('reads a header repeated on several lines', () => {
    expect(etagMatches(['"x"', 'W/"abc"'], '"abc"')).toBe(true);
    expect(etagMatches(['"x"', '"y"'], '"abc"')).toBe(false);
  });
});

describe('staticAsset', () => {
  it('keeps the body with its quoted base64url sha256 as a strong ETag', () => {
    const a = staticAsset(Buffer.from('var x;'), 'text/javascript');
    expect(a.etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    expect(a.etag).toBe(strongEtag(Buffer.from('var x;')));
    expect(a.etag).not.toBe(strongEtag(Buffer.from('var y;')));
  });
});

describe('conditionalGet', () => {
  const body = Buffer.from('x');
  const headers = { 'Cache-Control': 'public, max-age=300' };
  const typed = { 'Content-Type': 'text/plain' };

  it('answers 200 with the body, ETag, the headers and those that describe the body', () => {
    expect(conditionalGet('"other"', '"e"', body, headers, typed)).toEqual({
      status: 200,
      headers: { ETag: '"e"', 'Cache-Control': 'public, max-age=300', 'Content-Type': 'text/plain' },
      body,
    });
  });

  it('answers 304 with ETag and the headers only when If-None-Match names the ETag', () => {
    const answer = conditionalGet('W/"e"', '"e"', body, headers, typed);
    expect(answer).toEqual({ status: 304, headers: { ETag: '"e"', 'Cache-Control': 'public, max-age=300' } });
    expect(answer.body).toBeUndefined();
  });
});
