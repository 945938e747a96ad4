import { createReplayPreparer, prepareReplay } from './prepare-replay';

type Node = { type: number; id: number; tagName?: string; attributes?: Record<string, unknown>; childNodes?: Node[] };
const el = (id: number, tagName: string, attributes: Record<string, unknown> = {}, childNodes: Node[] = []): Node => ({
  type: 2,
  id,
  tagName,
  attributes,
  childNodes,
});
const meta = (timestamp: number) => ({ type: 4, timestamp, data: { href: 'https://shop.example.com/', width: 800, height: 600 } });
const snapshot = (timestamp: number, body: Node[]) => ({
  type: 2,
  timestamp,
  data: { node: { type: 0, id: 1, childNodes: [el(2, 'html', {}, [el(3, 'head'), el(4, 'body', {}, body)])] }, initialOffset: { left: 0, top: 0 } },
});
const attributes = (timestamp: number, list: { id: number; attributes: Record<string, unknown> }[]) => ({
  type: 3,
  timestamp,
  data: { source: 0, adds: [], removes: [], texts: [], attributes: list },
});

describe('createReplayPreparer (a live recording, part by part)', () => {
  it('sanitises a later part knowing the nodes of the earlier ones, as prepareReplay does the whole', () => {
    const parts = () => [
      [meta(1), snapshot(2, [el(10, 'img'), el(11, 'iframe'), el(12, 'a')])],
      [attributes(3, [{ id: 10, attributes: { src: 'https://cdn.example.com/p.png' } }])],
      [
        attributes(4, [
          { id: 11, attributes: { src: 'https://evil.example.com/' } },
          { id: 12, attributes: { href: 'javascript:alert(1)' } },
        ]),
      ],
    ];
    const whole = parts().flat();
    const sanitizedWhole = prepareReplay(whole).sanitized;
    const prepare = createReplayPreparer();
    const live = parts().map((p) => prepare(p));
    expect(live.flatMap((p) => p.events)).toEqual(whole);
    expect(live.map((p) => p.sanitized)).toEqual([0, 0, 2]);
    expect(sanitizedWhole).toBe(2);
    // The image's URL stays (an image may load from PLAYER_ASSET_SOURCES): a node not known would lose it.
    expect((live[1].events[0] as ReturnType<typeof attributes>).data.attributes[0].attributes.src).toBe('https://cdn.example.com/p.png');
    expect(createReplayPreparer()(parts()[1]).sanitized).toBe(1);
  });

  it('answers every style rule so far, canvases of later parts included', () => {
    const prepare = createReplayPreparer();
    const firstRules = prepare([meta(1), snapshot(2, [el(10, 'canvas', { width: '400' })])]).insertStyleRules;
    const later = prepare([attributes(3, [{ id: 10, attributes: { height: '90' } }])]).insertStyleRules;
    expect(firstRules).toContain(':where(canvas[width="400"]){width:400px}');
    expect(later).toEqual(expect.arrayContaining([...firstRules, ':where(canvas[height="90"]){height:90px}']));
  });

  it("holds a page view's Meta at the end of a part until its FullSnapshot comes, and gives it the snapshot's time", () => {
    const prepare = createReplayPreparer();
    expect(prepare([meta(1), snapshot(2, [])]).events.map((e) => (e as { type: number }).type)).toEqual([4, 2]);
    const second = prepare([attributes(5, []), meta(10)]);
    expect(second.events.map((e) => (e as { timestamp: number }).timestamp)).toEqual([5]);
    const third = prepare([snapshot(40, [])]);
    expect(third.events).toEqual([{ ...meta(40) }, snapshot(40, [])]);
  });

  it('holds a Meta once at most, and keeps each part in time order', () => {
    const prepare = createReplayPreparer();
    prepare([meta(1), snapshot(2, [])]);
    expect(prepare([meta(10)]).events).toEqual([]);
    expect(prepare([attributes(12, []), attributes(11, [])]).events.map((e) => (e as { timestamp: number }).timestamp)).toEqual([10, 11, 12]);
  });
});
