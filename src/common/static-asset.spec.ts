import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { chooseCoding, conditionalGet, etagMatches, negotiatedGet, staticAsset, strongEtag } from './static-asset';

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

describe('chooseCoding', () => {
  it.each([
    [undefined, 'identity'],
    ['', 'identity'],
    ['identity', 'identity'],
    ['gzip, deflate, br, zstd', 'br'], // Chromium's header: brotli on a tie
    ['gzip', 'gzip'],
    ['x-gzip', 'gzip'],
    ['br;q=0.5, gzip', 'gzip'],
    ['br;q=0, gzip;q=0', 'identity'],
    ['*', 'br'],
    ['*;q=0.3, gzip;q=0.8', 'gzip'],
    ['deflate', 'identity'],
    ['GZIP ; Q=1', 'gzip'],
  ])('Accept-Encoding %p -> %p', (header, expected) => {
    expect(chooseCoding(header)).toBe(expected);
  });
});

describe('negotiatedGet', () => {
  const text = Buffer.from('function f(){return "tapedeck"}\n'.repeat(200));
  const headers = { 'Cache-Control': 'public, max-age=300' };
  const typed = { 'Content-Type': 'text/javascript' };

  it('sends brotli or gzip by Accept-Encoding, each decoding to the body, with its own ETag', () => {
    const asset = staticAsset(text, 'text/javascript');
    const br = negotiatedGet('gzip, br', undefined, asset, headers, typed);
    const gz = negotiatedGet('gzip', undefined, asset, headers, typed);
    const plain = negotiatedGet(undefined, undefined, asset, headers, typed);
    expect(br.headers).toMatchObject({ 'Content-Encoding': 'br', Vary: 'Accept-Encoding', 'Content-Type': 'text/javascript', ...headers });
    expect(gz.headers).toMatchObject({ 'Content-Encoding': 'gzip', Vary: 'Accept-Encoding' });
    expect(plain.headers['Content-Encoding']).toBeUndefined();
    expect(plain.headers.Vary).toBe('Accept-Encoding');
    expect(brotliDecompressSync(br.body!)).toEqual(text);
    expect(gunzipSync(gz.body!)).toEqual(text);
    expect(plain.body).toEqual(text);
    expect(br.body!.length).toBeLessThan(text.length / 10);
    expect(new Set([br.headers.ETag, gz.headers.ETag, plain.headers.ETag]).size).toBe(3);
    expect(plain.headers.ETag).toBe(asset.etag);
  });

  it('compresses each coding once', () => {
    const asset = staticAsset(text, 'text/javascript');
    const first = negotiatedGet('br', undefined, asset, headers).body;
    expect(negotiatedGet('br', undefined, asset, headers).body).toBe(first);
  });

  it('answers 304 to the ETag of the representation it would send, with Vary', () => {
    const asset = staticAsset(text, 'text/javascript');
    const etag = negotiatedGet('br', undefined, asset, headers).headers.ETag;
    const again = negotiatedGet('br', etag, asset, headers, typed);
    expect(again.status).toBe(304);
    expect(again.body).toBeUndefined();
    expect(again.headers).toMatchObject({ ETag: etag, Vary: 'Accept-Encoding' });
    expect(again.headers['Content-Encoding']).toBeUndefined();
    // The brotli ETag does not validate the gzip representation.
    expect(negotiatedGet('gzip', etag, asset, headers).status).toBe(200);
  });

  it('sends the identity body when compressing would not make it smaller', () => {
    const asset = staticAsset(Buffer.from('x'), 'text/plain');
    const a = negotiatedGet('br, gzip', undefined, asset, headers);
    expect(a.headers['Content-Encoding']).toBeUndefined();
    expect(a.body).toEqual(Buffer.from('x'));
    expect(a.headers.ETag).toBe(asset.etag);
  });
});
