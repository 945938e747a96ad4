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
});
