// The composed replay's timeline: page views across recordings ordered by start, time renumbered from
// 0 with the gap between page views, every field of an event kept.
import type { RrwebEvent } from '../domain/rrweb-event';
import { PAGE_VIEW_GAP_MS } from './replay-composer';
import { compose, CUSTOM, FS, INC, META, rec, view } from './testing/replay-source.fake';

describe('composeReplay', () => {
  it('orders page views across recordings by start and replaces idle time with the gap', async () => {
    const a = rec('a', [
      [META, 100],
      [FS, 100],
      [INC, 150],
      [META, 300],
      [FS, 300],
      [INC, 400],
    ]);
    const b = rec('b', [
      [META, 200],
      [FS, 200],
      [INC, 250],
    ]);
    const out = await compose([b, a]);
    const g = PAGE_VIEW_GAP_MS;
    expect(view(out)).toEqual([
      ['a', 0, 0],
      ['a', 1, 0],
      ['a', 2, 50],
      ['b', 0, 50 + g],
      ['b', 1, 50 + g],
      ['b', 2, 100 + g],
      ['a', 3, 100 + 2 * g],
      ['a', 4, 100 + 2 * g],
      ['a', 5, 200 + 2 * g],
    ]);
  });

  it('plays a page view that starts during another one after it, with the same gap', async () => {
    const a = rec('a', [
      [META, 100],
      [FS, 100],
      [INC, 900],
      [INC, 1000],
    ]);
    const b = rec('b', [
      [META, 500],
      [FS, 500],
      [INC, 600],
    ]);
    const out = await compose([a, b]);
    expect(view(out)).toEqual([
      ['a', 0, 0],
      ['a', 1, 0],
      ['a', 2, 800],
      ['a', 3, 900],
      ['b', 0, 900 + PAGE_VIEW_GAP_MS],
      ['b', 1, 900 + PAGE_VIEW_GAP_MS],
      ['b', 2, 1000 + PAGE_VIEW_GAP_MS],
    ]);
  });

  it('breaks ties on start time by recording id, then by position', async () => {
    const b = rec('b', [
      [FS, 10],
      [FS, 10],
    ]);
    const a = rec('a', [[FS, 10]]);
    const out = await compose([b, a]);
    expect(out.map((e) => [e.recordingId, e.data.i])).toEqual([
      ['a', 0],
      ['b', 0],
      ['b', 1],
    ]);
  });

  it('keeps every field and adds originalTimestamp and recordingId', async () => {
    const data = { node: { id: 1 }, initialOffset: { top: 0, left: 0 } };
    const event: RrwebEvent = { type: FS, timestamp: 1_700_000_000_123, data, sequenceId: 7, custom: 'x' };
    const [out] = await compose([{ recordingId: 'r1', events: [event] }]);
    expect(out).toEqual({ ...event, timestamp: 0, originalTimestamp: 1_700_000_000_123, recordingId: 'r1' });
    expect(Object.keys(out).slice(0, 3)).toEqual(['type', 'timestamp', 'data']);
  });

  it('groups Meta events before a FullSnapshot with the new page view', async () => {
    const a = rec('a', [
      [META, 10],
      [FS, 10],
      [INC, 20],
      [CUSTOM, 30],
      [META, 40],
      [CUSTOM, 41],
      [FS, 42],
      [INC, 50],
    ]);
    const out = await compose([a]);
    // The first page view ends with the custom event at 30; the second starts at the Meta of 40.
    expect(view(out)).toEqual([
      ['a', 0, 0],
      ['a', 1, 0],
      ['a', 2, 10],
      ['a', 3, 20],
      ['a', 4, 20 + PAGE_VIEW_GAP_MS],
      ['a', 5, 21 + PAGE_VIEW_GAP_MS],
      ['a', 6, 22 + PAGE_VIEW_GAP_MS],
      ['a', 7, 30 + PAGE_VIEW_GAP_MS],
    ]);
  });

  it('keeps leading events with the first page view and starts the replay at them', async () => {
    const a = rec('a', [
      [CUSTOM, 5],
      [META, 10],
      [FS, 10],
      [INC, 12],
    ]);
    const b = rec('b', [
      [META, 7],
      [FS, 7],
    ]);
    const out = await compose([a, b]);
    expect(view(out)).toEqual([
      ['a', 0, 0],
      ['a', 1, 5],
      ['a', 2, 5],
      ['a', 3, 7],
      ['b', 0, 7 + PAGE_VIEW_GAP_MS],
      ['b', 1, 7 + PAGE_VIEW_GAP_MS],
    ]);
  });

  it('renumbers a single recording from 0 too, with the gap between its page views', async () => {
    // One recording is not passed through: its timestamps also start at 0 and a reload's idle time
    // becomes PAGE_VIEW_GAP_MS, so one recording and a group of one compose the same way.
    const a = rec('a', [
      [META, 1000],
      [FS, 1000],
      [INC, 1500],
      [META, 60_000],
      [FS, 60_000],
      [INC, 60_010],
    ]);
    const out = await compose([a]);
    expect(out.map((e) => e.timestamp)).toEqual([0, 0, 500, 1500, 1500, 1510]);
    expect(out.map((e) => e.originalTimestamp)).toEqual([1000, 1000, 1500, 60_000, 60_000, 60_010]);
  });
});
