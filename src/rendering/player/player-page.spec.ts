import { buildPlayerPage, PlayerPageInput } from './player-page';

const base: PlayerPageInput = {
  eventsUrl: '/recordings/0b6f8c1e-0000-4000-8000-000000000000/events?expires=1&signature=abc',
  controls: true,
  autoplay: false,
  mode: 'standard',
  speed: 1,
  time: { kind: 'offset', value: 0 },
  frameAncestors: "'self' https://app.example.com",
};

const configOf = (html: string) => JSON.parse(/<script type="application\/json" id="tapedeck-config">(.*?)<\/script>/s.exec(html)![1]);

describe('buildPlayerPage', () => {
  it('sends a strict CSP whose nonce admits only the inline bootstrap', () => {
    const { html, headers } = buildPlayerPage(base);
    const csp = headers['Content-Security-Policy'];
    const nonce = /'nonce-([A-Za-z0-9+/=]+)'/.exec(csp)![1];
    expect(csp).toBe(
      `default-src 'none'; script-src 'self' 'nonce-${nonce}'; style-src 'self' 'unsafe-inline'; img-src data: blob:; ` +
        "font-src data:; connect-src 'self'; frame-src about:; child-src 'self' blob:; " +
        "frame-ancestors 'self' https://app.example.com; base-uri 'none'; form-action 'none'",
    );
    const scripts = html.match(/<script[^>]*>/g)!;
    // The bootstrap first: it asks for the events while rrweb-player's script is read.
    expect(scripts).toEqual(['<script type="application/json" id="tapedeck-config">', `<script nonce="${nonce}">`, '<script src="/assets/rrweb-player.js">']);
    expect(headers).toMatchObject({
      'Content-Type': 'text/html; charset=utf-8',
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      'Cache-Control': 'no-store',
    });
  });

  it("lets the recorded site's images, fonts, stylesheets and media load from PLAYER_ASSET_SOURCES, and nothing else more", () => {
    const csp = buildPlayerPage({ ...base, assetSources: ' https:  https://cdn.example.com ' }).headers['Content-Security-Policy'];
    const directives = Object.fromEntries(csp.split('; ').map((d) => [d.split(' ')[0], d]));
    expect(directives['img-src']).toBe('img-src data: blob: https: https://cdn.example.com');
    expect(directives['font-src']).toBe('font-src data: https: https://cdn.example.com');
    expect(directives['style-src']).toBe("style-src 'self' 'unsafe-inline' https: https://cdn.example.com");
    expect(directives['media-src']).toBe('media-src https: https://cdn.example.com');
    expect(directives['script-src']).toMatch(/^script-src 'self' 'nonce-[^']+'$/);
    expect(directives['connect-src']).toBe("connect-src 'self'");
    const cspOf = (assetSources?: string) => buildPlayerPage({ ...base, nonce: 'n', assetSources }).headers['Content-Security-Policy'];
    expect(cspOf('  ')).toBe(cspOf(undefined));
    expect(cspOf(undefined)).not.toContain('media-src');
  });

  it('names an empty inline icon, so browsers do not ask the service for /favicon.ico (a 404 in the console)', () => {
    expect(buildPlayerPage(base).html).toContain('<link rel="icon" href="data:,">');
  });

  it('uses a fresh nonce per response', () => {
    const a = buildPlayerPage(base).headers['Content-Security-Policy'];
    const b = buildPlayerPage(base).headers['Content-Security-Policy'];
    expect(a).not.toBe(b);
  });

  it('passes the options to the bootstrap', () => {
    const { html } = buildPlayerPage({ ...base, autoplay: true, speed: 2, mode: 'minimal', controls: false, time: { kind: 'percent', value: 50 } });
    expect(configOf(html)).toEqual({
      eventsUrl: base.eventsUrl,
      controls: false,
      autoplay: true,
      live: false,
      mode: 'minimal',
      speed: 2,
      time: { kind: 'percent', value: 50 },
    });
    expect(html).toContain('<body class="mode-minimal">');
    expect(html).not.toContain('<header>');
  });

  it('shows a header in standard mode and no controls in capture mode', () => {
    expect(buildPlayerPage({ ...base, title: 'Checkout flow' }).html).toContain('<header><h1>Checkout flow</h1></header>');
    const capture = buildPlayerPage({ ...base, mode: 'capture', controls: true }).html;
    expect(configOf(capture).controls).toBe(false);
    expect(capture).not.toContain('<header>');
  });

  it('gives a live page the live bar: a badge and status, and with controls labelled native controls', () => {
    const { html, headers } = buildPlayerPage({ ...base, live: true });
    expect(configOf(html).live).toBe(true);
    expect(html).toContain('<body class="mode-standard live">');
    const bar = /<div id="live-bar"[^>]*>.*?<\/div>/s.exec(html)![0];
    expect(bar).toMatch(/^<div id="live-bar" role="group" aria-label="Live view" hidden>/);
    expect(bar).toContain('<span id="live-badge" class="badge">LIVE</span><span id="live-text">Connecting…</span>');
    expect(bar).toContain('<span id="live-announce" class="sr-only" role="status"></span>');
    for (const control of [
      '<button type="button" id="live-toggle">Pause</button>',
      '<button type="button" id="live-back" aria-label="Back 10 seconds">-10 s</button>',
      'aria-label="Position in what was received"',
      '<button type="button" id="live-go" disabled>Go live</button>',
    ])
      expect(bar).toContain(control);
    // EventSource to the same origin: the CSP is the recorded player's.
    expect(headers['Content-Security-Policy']).toContain("connect-src 'self'");
    expect(html.match(/<script/g)).toHaveLength(3);
    const noControls = buildPlayerPage({ ...base, live: true, controls: false, mode: 'minimal' }).html;
    expect(noControls).toContain('id="live-badge"');
    expect(noControls).not.toContain('<button');
    expect(buildPlayerPage({ ...base, live: true, mode: 'capture' }).html).not.toContain('id="live-bar"');
    expect(buildPlayerPage(base).html).not.toContain('id="live-bar"');
  });

  it('versions the asset URLs under the configured base', () => {
    const { html } = buildPlayerPage({ ...base, assetsBase: '/tapedeck/assets/', assetVersion: 'abc123' });
    expect(html).toContain('<link rel="stylesheet" href="/tapedeck/assets/rrweb-player.css?v=abc123">');
    expect(html).toContain('<script src="/tapedeck/assets/rrweb-player.js?v=abc123">');
  });

  it('cannot be broken out of by the title or the events URL', () => {
    const { html } = buildPlayerPage({ ...base, title: '</title><script>alert(1)</script>', eventsUrl: '/e?x=</script><script>alert(1)</script>' });
    expect(html.match(/<script/g)).toHaveLength(3);
    expect(configOf(html).eventsUrl).toBe('/e?x=</script><script>alert(1)</script>');
    expect(html).toContain('&#60;/title&#62;');
  });

  it('refuses to embed an API key', () => {
    expect(() => buildPlayerPage({ ...base, eventsUrl: '/e?token=secret_key_svc_abcdefabcdefabcdef' })).toThrow(/API key/);
    expect(() => buildPlayerPage({ ...base, title: 'public_key_svc_abcdefabcdefabcdef' })).toThrow(/API key/);
  });

  it('refuses a frame-ancestors value that would inject directives', () => {
    expect(() => buildPlayerPage({ ...base, frameAncestors: "'self'; script-src *" })).toThrow(/PLAYER_FRAME_ANCESTORS/);
    expect(() => buildPlayerPage({ ...base, frameAncestors: "'none'\r\nSet-Cookie: x" })).toThrow(/PLAYER_FRAME_ANCESTORS/);
  });
});
