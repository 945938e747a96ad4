// The Td-Activity header: what ingestion stores is what the projection would compute from the payload.
import { activityHeader, MAX_ACTIVITY_HEADER_BYTES, parseActivityHeader } from './activity-header';
import { batchActivity } from './batch-activity';
import { click, consoleLog, meta, snapshot, T0 } from './testing/activity-fixtures';
import type { RrwebEvent } from '../rrweb-event';

describe('activityHeader', () => {
  const events = [meta(T0, 'https://a.test/caf\u00e9'), snapshot(T0 + 1), click(T0 + 5, 7), consoleLog(T0 + 6, 'error', 'b\u00f6om')] as RrwebEvent[];

  it('reads back as the batch activity of the events, in ASCII (a NATS header)', () => {
    const h = activityHeader(events)!;
    expect(h).toMatch(/^[\x20-\x7e]*$/);
    expect(parseActivityHeader(h)).toEqual(batchActivity(events));
  });

  it('is left out when bigger than MAX_ACTIVITY_HEADER_BYTES (the projection reads the payload)', () => {
    const many = Array.from({ length: 400 }, (_, i) => consoleLog(T0 + i, 'error', `error number ${i} `.repeat(10))) as RrwebEvent[];
    expect(JSON.stringify(batchActivity(many)).length).toBeGreaterThan(MAX_ACTIVITY_HEADER_BYTES);
    expect(activityHeader(many)).toBeUndefined();
  });

  it('refuses what it did not write', () => {
    for (const raw of [
      undefined,
      '',
      'not json',
      'null',
      '[]',
      '{"items":[]}',
      '{"items":[],"nodes":[],"activeSeconds":[],"changes":[],"inputs":"1","minTs":0,"maxTs":0}',
    ])
      expect(parseActivityHeader(raw)).toBeUndefined();
  });
});
