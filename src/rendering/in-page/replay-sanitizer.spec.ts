import { sanitizeReplay } from './replay-sanitizer';

type Node = { type: number; id: number; tagName?: string; attributes?: Record<string, unknown>; childNodes?: Node[]; textContent?: string; isSVG?: boolean };
const el = (id: number, tagName: string, attributes: Record<string, unknown> = {}, childNodes: Node[] = [], isSVG?: boolean): Node => ({
  type: 2,
  id,
  tagName,
  attributes,
  childNodes,
  ...(isSVG ? { isSVG } : {}),
});
const text = (id: number, textContent: string): Node => ({ type: 3, id, textContent });
const snapshot = (body: Node[], head: Node[] = []) => ({
  type: 2,
  timestamp: 1,
  data: { node: { type: 0, id: 1, childNodes: [el(2, 'html', {}, [el(3, 'head', {}, head), el(4, 'body', {}, body)])] } },
});
const mutation = (data: Record<string, unknown>) => ({ type: 3, timestamp: 2, data: { source: 0, adds: [], removes: [], texts: [], attributes: [], ...data } });
const LOOP = 'http://127.0.0.1:9/x';

describe('sanitizeReplay', () => {
  it('keeps frames blank (their recorded documents stay) and drops srcdoc', () => {
    const nested = { type: 0, id: 20, childNodes: [el(21, 'html', {}, [el(22, 'body', {}, [el(23, 'iframe', { src: LOOP })])])] };
    const frames = [
      el(10, 'iframe', { src: 'data:text/html,hello', width: '200' }),
      el(11, 'IFRAME', { src: LOOP, srcdoc: '<meta http-equiv=refresh content="0;url=http://x/">' }),
      el(12, 'iframe', { src: 'about:blank' }, [nested as Node]),
      el(13, 'frame', { src: 'javascript:parent.x()' }),
    ];
    const events = [snapshot(frames)];
    expect(sanitizeReplay(events)).toBe(5);
    expect(frames.map((f) => f.attributes)).toEqual([{ width: '200' }, {}, { src: 'about:blank' }, {}]);
    expect(nested.childNodes[0].childNodes![0].childNodes![0].attributes).toEqual({});
  });

  it('drops hints, preloads, refreshes, bases and embeds; keeps stylesheets from http(s)', () => {
    const link = (id: number, rel: string, href = LOOP, more: Record<string, unknown> = {}) => el(id, 'link', { rel, href, ...more });
    const head = [
      link(10, 'preconnect'),
      link(11, 'dns-prefetch'),
      link(12, 'prefetch'),
      link(13, 'PreLoad', LOOP, { as: 'image', imagesrcset: `${LOOP} 2x` }),
      link(14, 'modulepreload'),
      link(15, 'prerender'),
      link(16, 'icon'),
      link(17, 'stylesheet preload'),
      link(18, 'stylesheet', 'https://cdn.example.com/a.css'),
      link(19, 'stylesheet', 'data:text/css,@import "http://127.0.0.1:9/";'),
      el(20, 'meta', { 'http-equiv': ' Refresh ', content: `0;url=${LOOP}` }),
      el(21, 'meta', { 'http-equiv': 'content-type', content: 'text/html' }),
      el(22, 'base', { href: 'http://127.0.0.1:9/' }),
    ];
    const body = [
      el(30, 'object', { data: LOOP, type: 'text/html' }),
      el(31, 'embed', { src: LOOP }),
      el(32, 'a', { href: 'https://example.com/', ping: LOOP }),
    ];
    sanitizeReplay([snapshot(body, head)]);
    const attrs = (n: Node) => n.attributes;
    expect(head.slice(0, 8).map((n) => attrs(n)!.href)).toEqual(Array(8).fill(undefined));
    expect(attrs(head[3])).toEqual({ as: 'image' }); // inert: a preload without its href is a console warning
    expect(attrs(head[8])).toEqual({ rel: 'stylesheet', href: 'https://cdn.example.com/a.css' });
    expect(attrs(head[9])).toEqual({ rel: 'stylesheet' });
    expect(attrs(head[10])).toEqual({ content: `0;url=${LOOP}` });
    expect(attrs(head[11])).toEqual({ 'http-equiv': 'content-type', content: 'text/html' });
    expect(attrs(head[12])).toEqual({});
    expect(body.map(attrs)).toEqual([{ type: 'text/html' }, {}, { href: 'https://example.com/' }]);
  });

  it('keeps images and media from http(s) and data:, and links that are never followed', () => {
    const body = [
      el(10, 'img', { src: 'https://cdn.example.com/a.png', srcset: 'blob:x 1x, https://cdn.example.com/b.png 2x' }),
      el(11, 'img', { src: 'javascript:alert(1)', rr_dataURL: 'http://127.0.0.1:9/p.png' }),
      el(12, 'img', { src: 'data:image/gif;base64,R0lG', rr_dataURL: 'data:image/png;base64,AA' }),
      el(13, 'video', { src: '/relative.mp4', poster: 'https://cdn.example.com/p.jpg' }, [el(14, 'track', { src: 'blob:x' })]),
      el(15, 'a', { href: 'javascript:alert(1)' }),
      el(16, 'form', { action: 'data:text/html,x' }, [el(17, 'button', { formaction: 'https://example.com/go' })]),
      el(18, 'table', { background: 'file:///x.png' }),
    ];
    sanitizeReplay([snapshot(body)]);
    expect(body.map((n) => n.attributes)).toEqual([
      { src: 'https://cdn.example.com/a.png', srcset: 'https://cdn.example.com/b.png 2x' },
      {},
      { src: 'data:image/gif;base64,R0lG', rr_dataURL: 'data:image/png;base64,AA' },
      { poster: 'https://cdn.example.com/p.jpg' },
      {},
      {},
      {},
    ]);
    expect(body[3].childNodes![0].attributes).toEqual({});
    expect(body[5].childNodes![0].attributes).toEqual({ formaction: 'https://example.com/go' });
  });

  it('rewrites URLs in stylesheets, style attributes and url() in any attribute; SVG references stay local', () => {
    const style = el(10, 'style', {}, [{ type: 3, id: 11, textContent: '@import "/a.css";p{background:url(/x.png)}' }]);
    const inlined = el(12, 'link', { rel: 'stylesheet', _cssText: '@font-face{src:url(blob:x)}' });
    const body = [
      el(20, 'div', { style: 'background:url(/y.png);color:red' }),
      el(21, 'svg', {}, [
        el(22, 'use', { href: `${LOOP}/s.svg#i`, 'xlink:href': '#i' }, [], true),
        el(23, 'image', { href: 'https://cdn.example.com/i.png' }, [], true),
        el(24, 'rect', { fill: 'url(#grad)', filter: 'url(/f.svg#f)' }, [], true),
        el(25, 'set', { attributeName: 'xlink:href', to: `${LOOP}/s.svg#i` }, [], true),
        el(26, 'style', {}, [text(27, '@import url(/evil.css);')], true),
      ]),
      text(28, 'url(/not-css) in a paragraph'),
    ];
    sanitizeReplay([snapshot(body, [style, inlined])]);
    expect(style.childNodes![0].textContent).toBe('@import "data:,";p{background:url(data:,)}');
    expect(inlined.attributes!._cssText).toBe('@font-face{src:url(data:,)}');
    expect(body[0].attributes).toEqual({ style: 'background:url(data:,);color:red' });
    const svg = body[1].childNodes!;
    expect(svg.map((n) => n.attributes)).toEqual([
      { 'xlink:href': '#i' },
      { href: 'https://cdn.example.com/i.png' },
      { fill: 'url(#grad)', filter: 'url(data:,)' },
      { to: `${LOOP}/s.svg#i` },
      {},
    ]);
    expect(svg[4].childNodes![0].textContent).toBe('@import url(data:,);');
    expect(body[2].textContent).toBe('url(/not-css) in a paragraph');
  });

  it('sanitises added nodes, text changes and attribute changes by what the node is', () => {
    const addedFrame = el(40, 'iframe', { src: LOOP });
    const addedText = { type: 3, id: 41, textContent: '@import "/a.css";' };
    const orphanText = { type: 3, id: 42, textContent: 'a{background:url(/o.png)}' };
    const events: any[] = [
      snapshot([
        el(10, 'iframe', {}),
        el(11, 'link', { rel: 'stylesheet', href: 'https://cdn.example.com/a.css' }),
        el(12, 'style', {}, [text(13, '')]),
        el(14, 'p', {}, [text(15, 'hi')]),
      ]),
      mutation({
        adds: [
          { parentId: 4, nextId: null, node: addedFrame },
          { parentId: 12, nextId: null, node: addedText },
          { parentId: 999, nextId: null, node: orphanText },
        ],
        texts: [
          { id: 13, value: 'p{background:url(javascript:x)}' },
          { id: 15, value: 'url(/just-text)' },
        ],
        attributes: [
          { id: 10, attributes: { src: 'data:text/html,x', title: 't' } },
          { id: 11, attributes: { rel: 'preconnect' } },
          { id: 14, attributes: { style: { background: 'url(/z.png)', color: ['red', 'important'], border: false }, 'http-equiv': 'refresh' } },
          { id: 777, attributes: { src: 'https://cdn.example.com/unknown.png', href: 'about:blank' } },
          { id: 40, attributes: { src: 'about:blank' } },
        ],
      }),
    ];
    sanitizeReplay(events);
    const d = events[1].data;
    expect(addedFrame.attributes).toEqual({});
    expect(addedText.textContent).toBe('@import "data:,";');
    expect(orphanText.textContent).toBe('a{background:url(data:,)}');
    expect(d.texts).toEqual([
      { id: 13, value: 'p{background:url(data:,)}' },
      { id: 15, value: 'url(/just-text)' },
    ]);
    expect(d.attributes.map((a: { attributes: unknown }) => a.attributes)).toEqual([
      { src: null, title: 't' },
      { rel: null, href: null, imagesrcset: null },
      { style: { background: 'url(data:,)', color: ['red', 'important'], border: false }, 'http-equiv': null },
      { src: null, href: null },
      { src: 'about:blank' },
    ]);
  });

  it('sanitises style sheet rules, declarations, adopted sheets and font sources', () => {
    const inc = (data: Record<string, unknown>) => ({ type: 3, timestamp: 3, data });
    const events: any[] = [
      inc({ source: 8, id: 12, adds: [{ rule: 'p{background:url(/r.png)}', index: 0 }], replace: '@import "/i.css";', replaceSync: 'a{b:url(blob:x)}' }),
      inc({ source: 13, id: 12, index: [0], set: { property: 'background', value: 'url(javascript:x)' } }),
      inc({ source: 15, id: 1, styleIds: [1], styles: [{ styleId: 1, rules: [{ rule: 'p{cursor:url(/c.cur),auto}' }] }] }),
      inc({ source: 10, family: 'F', fontSource: `url("${LOOP}/f.woff")`, buffer: false, descriptors: {} }),
      inc({ source: 10, family: 'G', fontSource: 'url(/g.woff)', buffer: false, descriptors: {} }),
      inc({ source: 10, family: 'H', fontSource: '[1,2,3]', buffer: true, descriptors: {} }),
    ];
    sanitizeReplay(events);
    expect(events[0].data).toMatchObject({ adds: [{ rule: 'p{background:url(data:,)}' }], replace: '@import "data:,";', replaceSync: 'a{b:url(data:,)}' });
    expect(events[1].data.set.value).toBe('url(data:,)');
    expect(events[2].data.styles[0].rules[0].rule).toBe('p{cursor:url(data:,),auto}');
    expect(events[3].data.fontSource).toBe(`url("${LOOP}/f.woff")`); // http(s): the CSP decides
    expect(events[4].data.fontSource).toBe('url(data:,)');
    expect(events[5].data.fontSource).toBe('[1,2,3]');
  });

  it('reaches nodes nested deeper than a call stack, and forgets a page view at the next snapshot', () => {
    let deep = el(100000, 'iframe', { src: LOOP });
    for (let i = 0; i < 20000; i++) deep = el(50000 + i, 'div', {}, [deep]);
    const bottom = () => {
      let n = deep;
      while (n.childNodes!.length) n = n.childNodes![0];
      return n;
    };
    const events: any[] = [
      snapshot([el(10, 'link', { rel: 'stylesheet' })]),
      snapshot([deep, el(10, 'img', {})]),
      mutation({ attributes: [{ id: 10, attributes: { src: 'https://cdn.example.com/a.png' } }] }),
    ];
    sanitizeReplay(events);
    expect(bottom().attributes).toEqual({});
    // id 10 is an <img> in the second page view: its image stays.
    expect(events[2].data.attributes[0].attributes).toEqual({ src: 'https://cdn.example.com/a.png' });
  });

  it('keeps node ids apart from object properties ("__proto__" is an id like any other)', () => {
    const frame = { type: 2, id: '__proto__', tagName: 'iframe', attributes: { src: LOOP }, childNodes: [] };
    const events: any[] = [snapshot([frame as unknown as Node]), mutation({ attributes: [{ id: 'tag', attributes: { src: LOOP } }] })];
    sanitizeReplay(events);
    expect(frame.attributes).toEqual({});
    expect(events[1].data.attributes[0].attributes).toEqual({ src: null });
  });

  it('ignores events of any odd shape', () => {
    expect(() =>
      sanitizeReplay([
        null,
        1,
        { type: 2 },
        { type: 2, data: { node: null } },
        { type: 3, data: { source: 0, adds: 'x', attributes: [null, { id: 1 }] } },
        { type: 3, data: 'x' },
      ]),
    ).not.toThrow();
  });
});
