import { replayFixes } from './replay-fixes';

const el = (id: number, tagName: string, attributes: Record<string, unknown> = {}, childNodes: unknown[] = []) => ({
  type: 2,
  id,
  tagName,
  attributes,
  childNodes,
});

describe('replayFixes', () => {
  it('sizes every canvas by the attributes it had: in snapshots, added later, or changed', () => {
    const snapshot = {
      type: 2,
      timestamp: 1,
      data: {
        node: {
          type: 0,
          id: 1,
          childNodes: [el(2, 'html', {}, [el(3, 'body', {}, [el(4, 'canvas', { width: '400', height: '200' }), el(5, 'div', { width: '999' })])])],
        },
      },
    };
    const added = {
      type: 3,
      timestamp: 2,
      data: { source: 0, adds: [{ parentId: 3, node: el(6, 'CANVAS', { width: 160 }) }], removes: [], texts: [], attributes: [] },
    };
    const changed = {
      type: 3,
      timestamp: 3,
      data: {
        source: 0,
        adds: [],
        removes: [],
        texts: [],
        attributes: [
          { id: 4, attributes: { height: '80' } },
          { id: 5, attributes: { height: '7' } },
        ],
      },
    };
    const rules = replayFixes([snapshot, added, changed]);
    // The general rule first: the ones for given sizes, as specific, come later and win.
    expect(rules.slice(0, 2)).toEqual([
      ':where(canvas){display:inline-block;width:300px;height:150px;overflow:hidden;color:transparent}',
      ':where(canvas) *{visibility:hidden}',
    ]);
    expect(rules.slice(2).sort()).toEqual([
      ':where(canvas[height="200"]){height:200px}',
      ':where(canvas[height="80"]){height:80px}',
      ':where(canvas[width="160"]){width:160px}',
      ':where(canvas[width="400"]){width:400px}',
    ]);
  });

  it("moves a later page view's Meta event to its snapshot's time; the first, and a Meta without a snapshot, stay", () => {
    const events = [
      { type: 4, timestamp: 100, data: {} },
      { type: 2, timestamp: 130, data: { node: { type: 0, id: 1, childNodes: [] } } },
      { type: 4, timestamp: 1000, data: {} },
      { type: 5, timestamp: 1010, data: { tag: 'x', payload: {} } },
      { type: 2, timestamp: 1050, data: { node: { type: 0, id: 1, childNodes: [] } } },
      { type: 4, timestamp: 2000, data: {} },
      { type: 3, timestamp: 2001, data: { source: 1, positions: [] } },
    ];
    replayFixes(events);
    expect(events.map((e) => e.timestamp)).toEqual([100, 130, 1050, 1010, 1050, 2000, 2001]);
  });

  it('ignores values that are not plain sizes, and events of any odd shape', () => {
    const odd = el(2, 'canvas', { width: '100%', height: '1" onload="x' });
    const rules = replayFixes([
      null,
      { type: 2 },
      { type: 3, data: { source: 0, adds: [null, {}], attributes: [null, { id: 1 }, { id: 2, attributes: 'x' }] } },
      { type: 2, data: { node: odd } },
      { type: 3, data: 'x' },
    ]);
    expect(rules).toHaveLength(2);
  });
});
