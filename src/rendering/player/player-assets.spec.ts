import { PlayerAssets } from './player-assets';

describe('PlayerAssets', () => {
  const assets = new PlayerAssets();

  it('serves the rrweb-player bundle and stylesheet with an ETag, without the source-map comment', () => {
    const js = assets.respond('rrweb-player.js');
    expect(js.status).toBe(200);
    expect(js.headers['Content-Type']).toBe('text/javascript; charset=utf-8');
    expect(js.headers.ETag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    expect(js.body!.toString()).toContain('rrwebPlayer');
    expect(js.body!.toString()).not.toMatch(/\/\/# sourceMappingURL=\S+\s*$/);
    const css = assets.respond('rrweb-player.css');
    expect(css.headers['Content-Type']).toBe('text/css; charset=utf-8');
    expect(css.body!.toString()).toContain('.rr-player');
  });

  it('marks versioned URLs immutable and others revalidating', () => {
    expect(assets.respond('rrweb-player.js', undefined, assets.version).headers['Cache-Control']).toBe('public, max-age=31536000, immutable');
    expect(assets.respond('rrweb-player.js').headers['Cache-Control']).toBe('public, max-age=86400');
    expect(assets.respond('rrweb-player.js', undefined, 'old').headers['Cache-Control']).toBe('public, max-age=86400');
  });

  it('answers 304 to a matching If-None-Match', () => {
    const etag = assets.respond('rrweb-player.css').headers.ETag;
    expect(assets.respond('rrweb-player.css', `"other", W/${etag}`).status).toBe(304);
    expect(assets.respond('rrweb-player.css', `"other"`).status).toBe(200);
    expect(assets.respond('rrweb-player.css', etag).body).toBeUndefined();
  });

  it('answers 404 for anything else', () => {
    expect(assets.respond('../package.json').status).toBe(404);
    expect(assets.respond('rrweb-player.cjs').status).toBe(404);
  });
});
