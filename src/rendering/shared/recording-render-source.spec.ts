import type { RrwebEvent } from '../../domain/rrweb-event';
import { assertRenderable } from './recording-render-source';

const snapshot = (node: unknown): RrwebEvent => ({ type: 2, timestamp: 1, data: { node, initialOffset: { left: 0, top: 0 } } });
const html = { type: 2, id: 2, tagName: 'HTML', attributes: {}, childNodes: [] };

describe('assertRenderable', () => {
  it('accepts recordings whose full snapshots are documents with <html>, and recordings without snapshots', () => {
    expect(() => assertRenderable([snapshot({ type: 0, id: 1, childNodes: [{ type: 1, id: 3, name: 'html' }, html] })])).not.toThrow();
    expect(() => assertRenderable([{ type: 3, timestamp: 1, data: {} }])).not.toThrow();
  });

  it.each([
    ['an empty document', { type: 0, id: 1, childNodes: [] }],
    ['a doctype only', { type: 0, id: 1, childNodes: [{ type: 1, id: 2, name: 'html' }] }],
    ['an element instead of a document', html],
    ['no node', undefined],
  ])('refuses %s with 422', (_name, node) => {
    expect(() => assertRenderable([snapshot(node)])).toThrow(expect.objectContaining({ code: 'unprocessable' }));
  });
});
