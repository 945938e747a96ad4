// A recording that names one host in every way a page can make a browser load from it, for the
// viewer-privacy and no-network tests: frames, images, srcsets, CSS url()/@import/@font-face, link
// hints, media, SVG, object/embed and meta refresh, in the full snapshot and again in later changes.
// Each reference has a path of its own, so a request shows which kind leaked; and a loopback
// listener that counts TCP connections and notes request paths.
import { AddressInfo } from 'node:net';
import { createServer, Server } from 'node:http';
import { snapshotData, TRACKER_PNG } from './rendering-e2e-fixtures';

/** Request paths (under the host) of references that load an image, a font, a stylesheet or media. */
export const ASSET_PATHS = [
  '/img.png',
  '/srcset.png',
  '/picture.png',
  '/input.png',
  '/attr-bg.png',
  '/style-bg.png',
  '/import.css',
  '/font.woff2',
  '/sheet.css',
  '/poster.png',
  '/video.mp4',
  '/source.mp4',
  '/track.vtt',
  '/audio.mp3',
  '/svg-image.png',
  '/added.png',
  '/changed.png',
  '/changed-bg.png',
  '/rule.png',
  '/fontface.woff2',
  '/text-import.css',
];

type Attrs = Record<string, string>;
const el = (id: number, tagName: string, attributes: Attrs = {}, childNodes: unknown[] = [], isSVG = false) => ({
  type: 2,
  id,
  tagName,
  attributes,
  childNodes,
  ...(isSVG ? { isSVG: true } : {}),
});
const text = (id: number, textContent: string) => ({ type: 3, id, textContent });

/** Meta, a FullSnapshot and, over about 1.5 s, changes: every one of them references `base` (e.g. http://127.0.0.1:PORT). */
export function referencingEvents(base: string, start = Date.now()) {
  const u = (path: string) => `${base}${path}`;
  const css = `@import url(${u('/import.css')});@font-face{font-family:Leak;src:url(${u('/font.woff2')}) format("woff2")}body{background:url(${u('/style-bg.png')})}p{font-family:Leak,sans-serif}`;
  const head = [
    el(10, 'style', {}, [text(11, css)]),
    el(12, 'link', { rel: 'stylesheet', href: u('/sheet.css') }),
    el(13, 'link', { rel: 'preconnect', href: u('/') }),
    el(14, 'link', { rel: 'dns-prefetch', href: u('/') }),
    el(15, 'link', { rel: 'prefetch', href: u('/prefetch') }),
    el(16, 'link', { rel: 'preload', as: 'image', href: u('/preload.png') }),
    el(17, 'link', { rel: 'preload', as: 'font', type: 'font/woff2', crossorigin: '', href: u('/preload.woff2') }),
    el(18, 'link', { rel: 'modulepreload', href: u('/module.js') }),
    el(19, 'link', { rel: 'prerender', href: u('/prerender') }),
    el(20, 'link', { rel: 'icon', href: u('/icon.png') }),
    el(21, 'meta', { 'http-equiv': 'refresh', content: `1;url=${u('/refresh')}` }),
  ];
  // A frame whose document rrweb recorded (attached by a mutation, as rrweb does): a frameset with a frame of its own.
  const framed = { type: 0, id: 61, childNodes: [el(62, 'html', {}, [el(63, 'head'), el(64, 'frameset', {}, [el(65, 'frame', { src: u('/frame') })])])] };
  const body = [
    el(30, 'p', {}, [text(31, 'Every reference of this page points at one host.')]),
    el(32, 'iframe', { src: u('/iframe') }),
    el(33, 'iframe', { src: `data:text/html,<img src="${u('/data-frame.png')}">` }),
    el(34, 'img', { src: u('/img.png'), width: '20', height: '20' }),
    el(35, 'img', { srcset: `${u('/srcset.png')} 1x, ${u('/srcset-2x.png')} 2x`, width: '20', height: '20' }),
    el(36, 'picture', {}, [el(37, 'source', { srcset: u('/picture.png') }), el(38, 'img', { src: 'data:image/gif;base64,R0lGODlhAQABAAAAACw=' })]),
    el(39, 'input', { type: 'image', src: u('/input.png') }),
    el(40, 'div', { style: `width:20px;height:20px;background-image:url(${u('/attr-bg.png')})` }),
    el(41, 'video', { src: u('/video.mp4'), poster: u('/poster.png'), preload: 'auto', width: '40', height: '30' }, [
      el(42, 'source', { src: u('/source.mp4'), type: 'video/mp4' }),
      el(43, 'track', { src: u('/track.vtt'), default: '' }),
    ]),
    el(44, 'audio', { src: u('/audio.mp3'), preload: 'auto' }),
    el(
      45,
      'svg',
      { width: '40', height: '20' },
      [el(46, 'image', { href: u('/svg-image.png'), width: '20', height: '20' }, [], true), el(47, 'use', { href: `${u('/sprite.svg')}#i` }, [], true)],
      true,
    ),
    el(48, 'object', { data: u('/object'), type: 'text/html', width: '20', height: '20' }),
    el(49, 'embed', { src: u('/embed'), type: 'text/html' }),
    el(50, 'a', { href: u('/link'), ping: u('/ping') }, [text(51, 'a link')]),
    el(60, 'iframe', {}),
  ];
  const snapshot = snapshotData({ childNodes: body });
  (snapshot.node.childNodes[0].childNodes[0] as { childNodes: unknown[] }).childNodes = head;
  const attachFrame = { source: 0, isAttachIframe: true, adds: [{ parentId: 60, nextId: null, node: framed }], removes: [], texts: [], attributes: [] };
  const changes = [
    {
      source: 0,
      texts: [{ id: 11, value: `@import "${u('/text-import.css')}";` }],
      removes: [],
      adds: [
        { parentId: 5, nextId: null, node: el(70, 'img', { src: u('/added.png'), width: '20', height: '20' }) },
        { parentId: 5, nextId: null, node: el(71, 'iframe', { src: u('/added-frame') }) },
        { parentId: 4, nextId: null, node: el(72, 'link', { rel: 'prefetch', href: u('/added-prefetch') }) },
        { parentId: 4, nextId: null, node: el(73, 'meta', { 'http-equiv': 'refresh', content: `0;url=${u('/added-refresh')}` }) },
      ],
      attributes: [],
    },
    {
      source: 0,
      texts: [],
      removes: [],
      adds: [],
      attributes: [
        { id: 34, attributes: { src: u('/changed.png') } },
        { id: 40, attributes: { style: { 'background-image': `url(${u('/changed-bg.png')})` } } },
        { id: 32, attributes: { src: u('/changed-frame') } },
        { id: 12, attributes: { rel: 'preload', as: 'style' } },
        { id: 47, attributes: { href: `${u('/changed-sprite.svg')}#i` } },
      ],
    },
    { source: 8, id: 10, adds: [{ rule: `p{background:url(${u('/rule.png')})}`, index: 0 }] },
    { source: 10, family: 'Leak2', fontSource: `url(${u('/fontface.woff2')})`, buffer: false, descriptors: {} },
  ];
  return [
    { type: 4, timestamp: start, data: { href: 'https://shop.example.com/', width: 800, height: 500 } },
    { type: 2, timestamp: start + 10, data: snapshot },
    { type: 3, timestamp: start + 11, data: attachFrame },
    ...changes.map((data, i) => ({ type: 3, timestamp: start + 400 + i * 300, data })),
    { type: 3, timestamp: start + 1800, data: { source: 1, positions: [{ x: 10, y: 10, id: 5, timeOffset: 0 }] } },
  ];
}

/** A loopback HTTP listener that notes every TCP connection and request path; it answers a PNG for *.png, else 404. */
export async function countingListener(): Promise<{ base: string; connections: () => number; paths: string[]; close: () => Promise<void> }> {
  let connections = 0;
  const paths: string[] = [];
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    paths.push(path);
    if (path.endsWith('.png')) res.writeHead(200, { 'Content-Type': 'image/png' }).end(TRACKER_PNG);
    else res.writeHead(404, { 'Access-Control-Allow-Origin': '*' }).end();
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connections: () => connections,
    paths,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
