import type { EventStore } from '../../domain/event-store';
import type { RrwebEvent } from '../../domain/rrweb-event';
import { RecordingEventsService } from '../../recordings/recording-events.service';
import type { WindowHints } from '../../recordings/window-hints.service';
import { assertRenderable, RecordingRenderSource } from './recording-render-source';

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

describe('RecordingRenderSource.resolve', () => {
  const source = (lastEventSeq: number | undefined, exists: boolean) => {
    const store = { lastEventSeq: async () => lastEventSeq, exists: async () => exists } as unknown as EventStore;
    return new RecordingRenderSource(store, new RecordingEventsService(store), {} as WindowHints);
  };

  it('keys the content by the last event batch; 422 for a recording with metadata but no events yet; 404 for none', async () => {
    await expect(source(7, true).resolve('t', 'r')).resolves.toMatchObject({ contentKey: 't/r/7' });
    await expect(source(undefined, true).resolve('t', 'r')).rejects.toMatchObject({ code: 'unprocessable' });
    await expect(source(undefined, false).resolve('t', 'r')).rejects.toMatchObject({ code: 'not_found', message: 'Recording not found' });
  });
});
