import { sanitizeSrcset, urlAllowed, urlKind } from './url-policy';

describe('urlKind', () => {
  it('reads URLs as the URL parser does', () => {
    expect(urlKind('https://cdn.example.com/a.png')).toBe('remote');
    expect(urlKind('  HTTP://127.0.0.1:9/x')).toBe('remote');
    expect(urlKind('data:image/png;base64,AAAA')).toBe('data');
    expect(urlKind('\u0001DaTa:text/html,x')).toBe('data');
    expect(urlKind('java\tscript:alert(1)')).toBe('other');
    expect(urlKind('blob:https://example.com/1')).toBe('other');
    expect(urlKind('about:blank')).toBe('blank');
    expect(urlKind('ABOUT:BLANK#x')).toBe('blank');
    expect(urlKind('about:srcdoc')).toBe('other');
    expect(urlKind('#grad')).toBe('fragment');
    expect(urlKind('/metrics')).toBe('relative');
    expect(urlKind('//127.0.0.1/x')).toBe('relative');
    expect(urlKind('')).toBe('other');
  });
});

describe('urlAllowed', () => {
  it('lets frames be blank only, stylesheets remote only, references fragments only', () => {
    expect(urlAllowed('about:blank', 'frame')).toBe(true);
    expect(urlAllowed('data:text/html,hello', 'frame')).toBe(false);
    expect(urlAllowed('http://127.0.0.1:9/x', 'frame')).toBe(false);
    expect(urlAllowed('https://cdn.example.com/a.css', 'stylesheet')).toBe(true);
    expect(urlAllowed('data:text/css,a{}', 'stylesheet')).toBe(false);
    expect(urlAllowed('#icon', 'reference')).toBe(true);
    expect(urlAllowed('https://x.example/s.svg#icon', 'reference')).toBe(false);
  });

  it('lets images and media be remote or inline', () => {
    expect(urlAllowed('https://cdn.example.com/a.png', 'image')).toBe(true);
    expect(urlAllowed('data:image/gif;base64,R0lG', 'image')).toBe(true);
    expect(urlAllowed('blob:https://example.com/1', 'media')).toBe(false);
    expect(urlAllowed('/relative.png', 'image')).toBe(false);
  });

  it('keeps link targets except those that run or carry content', () => {
    for (const ok of ['https://example.com/', '/about', '#top', 'mailto:a@example.com', 'tel:+1']) expect(urlAllowed(ok, 'navigation')).toBe(true);
    for (const bad of ['javascript:alert(1)', ' JavaScript:x', 'vbscript:x', 'data:text/html,x', 'blob:https://e/1', 'file:///etc/passwd']) {
      expect(urlAllowed(bad, 'navigation')).toBe(false);
    }
  });
});

describe('sanitizeSrcset', () => {
  it('keeps the candidates that may load, with their descriptors', () => {
    expect(sanitizeSrcset('https://a.example/1.png 1x, /rel.png 2x, data:image/png;base64,AA,BB 3x')).toBe(
      'https://a.example/1.png 1x, data:image/png;base64,AA,BB 3x',
    );
    expect(sanitizeSrcset('https://a.example/1.png,  https://a.example/2.png 2x')).toBe('https://a.example/1.png, https://a.example/2.png 2x');
    // A URL runs to whitespace, commas included (as the HTML parser reads it).
    expect(sanitizeSrcset('https://a.example/1.png,/2.png 2x')).toBe('https://a.example/1.png,/2.png 2x');
    expect(sanitizeSrcset('javascript:x 1x, blob:y 2x')).toBeNull();
    expect(sanitizeSrcset('  ')).toBeNull();
  });
});
