import { sanitizeCss } from './css-urls';

describe('sanitizeCss', () => {
  it('keeps http(s), data: and #fragment URLs and text without URLs as they are', () => {
    const css = [
      'body{background:url(https://cdn.example.com/a.png) no-repeat;color:rgb(1,2,3)}',
      '@font-face{font-family:F;src:url("data:font/woff2;base64,AAAA") format("woff2"),local(Arial)}',
      '.g{fill:url(#grad);filter:url( "#blur" )}',
      '.s{background-image:image-set("http://cdn.example.com/a.png" 1x,url(https://cdn.example.com/b.png) 2x)}',
      '@import url("https://fonts.example.com/css");',
      '.t::after{content:"url(javascript:x)"}/* url(blob:x) */',
    ].join('\n');
    expect(sanitizeCss(css)).toBe(css);
  });

  it('rewrites relative, javascript:, blob: and other URLs to data:, wherever CSS loads them', () => {
    expect(sanitizeCss('a{background:url(/x.png)}')).toBe('a{background:url(data:,)}');
    expect(sanitizeCss("a{background:url('javascript:alert(1)')}")).toBe('a{background:url("data:,")}');
    expect(sanitizeCss('a{cursor:url(blob:https://x/1),auto}')).toBe('a{cursor:url(data:,),auto}');
    expect(sanitizeCss('a{background:-webkit-image-set("//evil.example/a.png" 1x)}')).toBe('a{background:-webkit-image-set("data:," 1x)}');
    expect(sanitizeCss('@font-face{src:url(file:///etc/passwd)}')).toBe('@font-face{src:url(data:,)}');
  });

  it('allows only http(s) stylesheets in @import, in either form', () => {
    expect(sanitizeCss('@import "data:text/css,@import url(http://127.0.0.1:1/)";p{}')).toBe('@import "data:,";p{}');
    expect(sanitizeCss('@IMPORT url(data:text/css,x);')).toBe('@IMPORT url(data:,);');
    expect(sanitizeCss('@import "https://cdn.example.com/a.css" screen;')).toBe('@import "https://cdn.example.com/a.css" screen;');
    // After the import's URL, strings are strings again.
    expect(sanitizeCss('@import url(https://a.example/x.css) supports(display:grid);p::after{content:"y"}')).toBe(
      '@import url(https://a.example/x.css) supports(display:grid);p::after{content:"y"}',
    );
  });

  it('decodes escapes as the browser does: in function names, at-rule names and URLs', () => {
    expect(sanitizeCss('a{background:u\\72l(/x)}')).toBe('a{background:url(data:,)}');
    expect(sanitizeCss('a{background:URL(\\2f x)}')).toBe('a{background:url(data:,)}');
    expect(sanitizeCss('@\\69mport "/evil.css";')).toBe('@\\69mport "data:,";');
    expect(sanitizeCss('a{background:url("\\6a avascript:x")}')).toBe('a{background:url("data:,")}');
    // An escaped scheme of an allowed URL is still allowed.
    expect(sanitizeCss('a{background:url(\\68ttps://cdn.example.com/a.png)}')).toBe('a{background:url(\\68ttps://cdn.example.com/a.png)}');
  });

  it('reads strings and comments as the tokenizer does: a quote inside them hides nothing', () => {
    const tricky = 'a::after{content:"\\"; background:url(/x)"}b{background:url(/y)}';
    expect(sanitizeCss(tricky)).toBe('a::after{content:"\\"; background:url(/x)"}b{background:url(data:,)}');
    expect(sanitizeCss('/* " */a{background:url(/z)}')).toBe('/* " */a{background:url(data:,)}');
    // A newline ends an unclosed string; the next line is CSS again.
    expect(sanitizeCss('a{content:"x\nb{background:url(/w)}')).toBe('a{content:"x\nb{background:url(data:,)}');
  });

  it('tolerates text cut short', () => {
    expect(sanitizeCss('a{background:url(/x')).toBe('a{background:url(data:,)');
    expect(sanitizeCss('a{background:url("/x')).toBe('a{background:url("data:,"');
    expect(sanitizeCss('@import')).toBe('@import');
    expect(sanitizeCss('a{b:c\\')).toBe('a{b:c\\');
  });
});
