// Hand-made rrweb events for the activity specs (unit and e2e): the shapes rrweb 2 records.
export const T0 = 1_700_000_000_000;

export const recordingMeta = (ts: number) => ({ type: 5, timestamp: ts, data: { tag: 'recording-meta', payload: { recorder: 'tapedeck' } } });
export const meta = (ts: number, href: string) => ({ type: 4, timestamp: ts, data: { href, width: 1280, height: 720 } });

/** A page with a title, a "Pay now" button (id 7, its text node 8, a span 11 inside), a plain div (9, text 10) and an input (12). */
export const snapshot = (ts: number, title = 'Checkout') => ({
  type: 2,
  timestamp: ts,
  data: {
    node: {
      type: 0,
      id: 1,
      childNodes: [
        {
          type: 2,
          id: 2,
          tagName: 'html',
          attributes: {},
          childNodes: [
            {
              type: 2,
              id: 3,
              tagName: 'head',
              attributes: {},
              childNodes: [{ type: 2, id: 4, tagName: 'title', attributes: {}, childNodes: [{ type: 3, id: 5, textContent: title }] }],
            },
            {
              type: 2,
              id: 6,
              tagName: 'body',
              attributes: {},
              childNodes: [
                {
                  type: 2,
                  id: 7,
                  tagName: 'button',
                  attributes: { id: 'pay', class: 'btn primary rr-ignore' },
                  childNodes: [
                    { type: 3, id: 8, textContent: ' Pay\n now ' },
                    { type: 2, id: 11, tagName: 'span', attributes: {}, childNodes: [] },
                  ],
                },
                { type: 2, id: 9, tagName: 'div', attributes: { class: 'card' }, childNodes: [{ type: 3, id: 10, textContent: 'plain' }] },
                { type: 2, id: 12, tagName: 'input', attributes: { type: 'text', placeholder: 'Email', value: '***' }, childNodes: [] },
              ],
            },
          ],
        },
      ],
    },
    initialOffset: { top: 0, left: 0 },
  },
});

export const click = (ts: number, id: number, x = 100, y = 200) => ({ type: 3, timestamp: ts, data: { source: 2, type: 2, id, x, y, pointerType: 0 } });
export const mouseDown = (ts: number, id: number) => ({ type: 3, timestamp: ts, data: { source: 2, type: 1, id, x: 1, y: 1 } });
export const move = (ts: number) => ({ type: 3, timestamp: ts, data: { source: 1, positions: [{ x: 5, y: 5, id: 6, timeOffset: 0 }] } });
export const input = (ts: number, id = 12) => ({ type: 3, timestamp: ts, data: { source: 5, id, text: '***', isChecked: false } });
export const textChange = (ts: number, id = 10) => ({
  type: 3,
  timestamp: ts,
  data: { source: 0, texts: [{ id, value: 'changed' }], attributes: [], removes: [], adds: [] },
});
/** A mutation adding an element under the body with one text node in it (after `removes`). */
const addElement = (
  ts: number,
  element: { id: number; tagName: string; attributes: Record<string, string> },
  text: { id: number; textContent: string },
  removes: { parentId: number; id: number }[] = [],
) => ({
  type: 3,
  timestamp: ts,
  data: {
    source: 0,
    texts: [],
    attributes: [],
    removes,
    adds: [
      { parentId: 6, nextId: null, node: { type: 2, ...element, childNodes: [] } },
      { parentId: element.id, nextId: null, node: { type: 3, ...text } },
    ],
  },
});
/** A mutation adding a link (id 20) with a text node (21) under the body. */
export const addLink = (ts: number, text = 'Help') =>
  addElement(ts, { id: 20, tagName: 'a', attributes: { href: '/help', class: 'nav' } }, { id: 21, textContent: text });
/** A mutation serialising the snapshot's button (id 7) again, reading `text` (text node 30). */
export const relabelButton = (ts: number, text: string) =>
  addElement(ts, { id: 7, tagName: 'button', attributes: {} }, { id: 30, textContent: text }, [{ parentId: 6, id: 7 }]);
export const consoleLog = (ts: number, level: string, ...args: unknown[]) => ({
  type: 6,
  timestamp: ts,
  data: { plugin: 'rrweb/console@1', payload: { level, payload: args.map((a) => JSON.stringify(a)), trace: ['f (https://shop.test/app.js:1:2)'] } },
});
export const network = (ts: number, ...requests: { name: string; method?: string; status?: number; initiatorType?: string; duration?: number }[]) => ({
  type: 6,
  timestamp: ts,
  data: { plugin: 'rrweb/network@1', payload: { requests: requests.map((r) => ({ method: 'GET', initiatorType: 'fetch', duration: 10, ...r })) } },
});
