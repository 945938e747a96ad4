import { NodeLabeller } from './node-labels';

const el = (id: number, tagName: string, childNodes: unknown[] = [], attributes: Record<string, unknown> = {}) => ({
  type: 2,
  id,
  tagName,
  attributes,
  childNodes,
});
const text = (id: number, textContent: string) => ({ type: 3, id, textContent });

describe('NodeLabeller', () => {
  // (Its time is measured in the bench: noisy-neighbour's bulk ingestion prepares a 9 600-row list.)
  it('labels the clickable elements of a wide list, and the nodes inside them', () => {
    const rows = Array.from({ length: 20_000 }, (_, i) => el(100 + 2 * i, 'button', [text(101 + 2 * i, `Buy ${i}`)], { class: 'buy' }));
    const labeller = new NodeLabeller();
    labeller.addSnapshot({ type: 0, id: 1, childNodes: [el(2, 'html', [el(3, 'body', [el(4, 'ul', rows)])])] });
    const labels = labeller.labels();
    expect(labels).toHaveLength(5000); // MAX_LABELS_PER_BATCH: the first 2 500 rows and their texts
    expect(labels.find((l) => l.nodeId === 101 + 2 * 2499)).toEqual({ nodeId: 101 + 2 * 2499, tag: 'button', text: 'Buy 2499', selector: 'button.buy' });
    expect(labels.find((l) => l.nodeId === 100 + 2 * 2500)).toBeUndefined();
  });

  it('keeps a node added again under the same parent once, with what it holds now', () => {
    const labeller = new NodeLabeller();
    labeller.addSnapshot({ type: 0, id: 1, childNodes: [el(2, 'html', [el(3, 'body', [el(5, 'a', [text(6, 'Old')])])])] });
    labeller.addMutation([{ parentId: 5, node: text(6, 'Home') }]);
    expect(labeller.labels()).toEqual([
      { nodeId: 5, tag: 'a', text: 'Home', selector: 'a' },
      { nodeId: 6, tag: 'a', text: 'Home', selector: 'a' },
    ]);
  });

  it('keeps of a snapshot only what labels come from, and labels what mutations add under any of it', () => {
    const rows = Array.from({ length: 5000 }, (_, i) => el(100 + 2 * i, 'li', [text(101 + 2 * i, `Row ${i}`)]));
    const labeller = new NodeLabeller();
    const title = labeller.addSnapshot({
      type: 0,
      id: 1,
      childNodes: [
        el(2, 'html', [
          el(3, 'head', [el(7, 'title', [text(8, 'Catalogue')])]),
          el(4, 'body', [el(5, 'ul', rows), el(9, 'div', [el(10, 'span', [text(11, 'Pay')])], { role: 'button', id: 'pay' })]),
        ]),
      ],
    });
    expect(title).toBe('Catalogue');
    // Only the title and the role=button div with what it holds are kept.
    expect((labeller as unknown as { nodes: Map<number, unknown> }).nodes.size).toBe(5);
    // A button added into a row (not kept), a text added into the clickable div.
    labeller.addMutation([
      { parentId: 100, node: el(20_000, 'button', [], { class: 'buy' }) },
      { parentId: 20_000, node: text(20_001, 'Buy') },
      { parentId: 10, node: text(20_002, ' now') },
    ]);
    expect(labeller.labels()).toEqual([
      { nodeId: 9, tag: 'div', text: 'Pay now', selector: 'div#pay' },
      { nodeId: 10, tag: 'div', text: 'Pay now', selector: 'div#pay' },
      { nodeId: 11, tag: 'div', text: 'Pay now', selector: 'div#pay' },
      { nodeId: 20_002, tag: 'div', text: 'Pay now', selector: 'div#pay' },
      { nodeId: 20_000, tag: 'button', text: 'Buy', selector: 'button.buy' },
      { nodeId: 20_001, tag: 'button', text: 'Buy', selector: 'button.buy' },
    ]);
  });
});
