// The activity projection's apply: rows per table from event payloads, deletion markers of the same
// fetch, chunked batches, and messages it cannot read (acknowledged as skipped, never retried).
import { headerJson, summarizeBatch } from '../domain/batch-summary';
import { click, consoleLog, meta, snapshot, T0 } from '../domain/activity/testing/activity-fixtures';
import type { RrwebEvent } from '../domain/rrweb-event';
import { applyActivityMessages } from './activity-projection';
import { batchTs, needsPayload } from './activity-rows';
import { activityHeader } from '../domain/activity/activity-header';
import type { ProjectionMessage } from './projection';
import { UNPLACED_TS } from './projection-tables';
import { summaryRows } from './summary-rows';

const REC = '11111111-1111-4111-8111-111111111111';
const subject = (kind: string, rec = REC) => `td.rec.t1.${rec}.${kind}`;
function ev(seq: number, events: unknown[], headers: Record<string, string> = {}): ProjectionMessage {
  const data = Buffer.from(JSON.stringify(events));
  return {
    seq,
    subject: subject('ev'),
    timeMs: T0,
    headers: { 'Td-Batch': `b${seq}`, 'Td-Summary': headerJson(summarizeBatch(events as RrwebEvent[], data.length)), ...headers },
    data,
  };
}

describe('applyActivityMessages', () => {
  it('writes items, node labels and a batch row per event batch, keyed by seq and batch id', () => {
    const out = applyActivityMessages([
      ev(1, [meta(T0, 'https://a.test/x'), snapshot(T0 + 1)]),
      ev(2, [click(T0 + 5, 7), consoleLog(T0 + 6, 'error', 'boom')]),
    ]);
    expect(out.rows.recording_activity.map((r) => [r.seq, r.batch_id, r.idx, r.kind, r.ts])).toEqual([
      [1, 'b1', 0, 'page', T0],
      [2, 'b2', 0, 'click', T0 + 5],
      [2, 'b2', 1, 'error', T0 + 6],
    ]);
    expect(out.rows.recording_activity[0]).toMatchObject({ url: 'https://a.test/x', path: '/x', title: 'Checkout', tenant_id: 't1', recording_id: REC });
    expect(out.rows.recording_activity_nodes.map((r) => r.node_id)).toEqual([7, 8, 11, 12]);
    expect(out.rows.recording_activity_batches.map((r) => [r.seq, r.min_ts, r.max_ts])).toEqual([
      [1, T0, T0 + 1],
      [2, T0 + 5, T0 + 6],
    ]);
    expect([out.deletions, out.skipped]).toEqual([[], []]);
  });

  it("writes every row again to recording_activity_timeline, with its kind and its batch's start as recording_timeline has it", () => {
    const out = applyActivityMessages([
      ev(1, [meta(T0, 'https://a.test/x'), snapshot(T0 + 1)]),
      ev(2, [click(T0 + 5, 7), consoleLog(T0 + 6, 'error', 'boom')]),
    ]);
    const timeline = out.rows.recording_activity_timeline;
    expect(timeline.map((r) => [r.kind, r.seq, r.batch_ts])).toEqual([
      ['page', 1, T0],
      ...[7, 8, 11, 12].map(() => ['node', 1, T0]),
      ['batch', 1, T0],
      ['click', 2, T0 + 5],
      ['error', 2, T0 + 5],
      ['batch', 2, T0 + 5],
    ]);
    // Each row is its own table's row with its kind and batch_ts (other columns: their defaults on insert).
    expect(timeline[0]).toEqual({ ...out.rows.recording_activity[0], batch_ts: T0 });
    expect(timeline[1]).toEqual({ ...out.rows.recording_activity_nodes[0], kind: 'node', batch_ts: T0 });
    expect(timeline[5]).toEqual({ ...out.rows.recording_activity_batches[0], kind: 'batch', batch_ts: T0 });
  });

  it("takes batch_ts by the recordings projection's rule: the min_ts of its recording_timeline row, if it has one", () => {
    const base = ev(1, [click(T0 + 5, 7)]);
    for (const summary of [
      base.headers['Td-Summary'],
      '',
      'x',
      'null',
      '{"v":2,"n":3,"minTs":5}',
      '{"v":1,"n":0,"minTs":5}',
      '{"v":1,"n":0.5,"minTs":5}',
      '{"v":1,"n":2,"minTs":5.7}',
      '{"v":1,"n":2}',
    ]) {
      const m = { ...base, headers: { ...base.headers, 'Td-Summary': summary } };
      const r = summaryRows(m, 't1', REC);
      expect([summary, batchTs(m)]).toEqual([summary, 'rows' in r && r.rows.timeline ? r.rows.timeline.min_ts : UNPLACED_TS]);
    }
  });

  it('places rows of a message whose summary gives no recording_timeline row in every window', () => {
    const out = applyActivityMessages([ev(1, [click(T0 + 5, 7)], { 'Td-Summary': '' }), ev(2, [click(T0 + 5, 7)], { 'Td-Summary': '{"v":9}' })]);
    expect(out.rows.recording_activity_timeline.map((r) => r.batch_ts)).toEqual([UNPLACED_TS, UNPLACED_TS, UNPLACED_TS, UNPLACED_TS]);
  });

  it('drops messages below a deletion marker of the same fetch and deletes the older rows', () => {
    const other = '22222222-2222-4222-8222-222222222222';
    const out = applyActivityMessages([
      ev(1, [click(T0, 7)]),
      { seq: 2, subject: subject('del'), timeMs: T0, headers: {} },
      ev(3, [click(T0 + 9, 7)]),
      { ...ev(4, [click(T0, 1)]), subject: subject('ev', other) },
    ]);
    expect(out.rows.recording_activity.map((r) => [r.recording_id, r.seq])).toEqual([
      [REC, 3],
      [other, 4],
    ]);
    expect(out.deletions).toEqual([
      {
        tables: ['recording_activity', 'recording_activity_nodes', 'recording_activity_batches', 'recording_activity_timeline'],
        tenantId: 't1',
        recordingId: REC,
        beforeSeq: 2,
      },
    ]);
  });

  it("takes only the page its summary names from a chunked batch's last chunk, nothing from the others", () => {
    const events = [meta(T0, 'https://a.test/big?x=1'), snapshot(T0 + 1)];
    const chunk0 = ev(1, events, { 'Td-Chunk': '0/2' });
    const first = { ...chunk0, headers: { 'Td-Batch': 'b2', 'Td-Chunk': '0/2' } };
    const out = applyActivityMessages([first, ev(2, events, { 'Td-Chunk': '1/2' })]);
    expect(out.rows.recording_activity).toEqual([
      expect.objectContaining({ seq: 2, kind: 'page', ts: T0, url: 'https://a.test/big?x=1', path: '/big', title: '' }),
    ]);
    expect(out.rows.recording_activity_nodes).toEqual([]);
    expect(out.skipped).toEqual([]);
    // So no chunk's payload is loaded, and without them the rows are the same.
    expect([first, ev(2, events, { 'Td-Chunk': '1/2' })].map(needsPayload)).toEqual([false, false]);
    expect(
      applyActivityMessages([
        { ...first, data: undefined },
        { ...ev(2, events, { 'Td-Chunk': '1/2' }), data: undefined },
      ]),
    ).toEqual(out);
  });

  it("takes a batch's activity from its Td-Activity header when it has one: the same rows, no payload needed", () => {
    const batches = [
      [meta(T0, 'https://a.test/x'), snapshot(T0 + 1)],
      [click(T0 + 5, 7), consoleLog(T0 + 6, 'error', 'boom')],
    ];
    const fromPayload = batches.map((b, i) => ev(i + 1, b));
    const fromHeader = batches.map((b, i) => ({ ...ev(i + 1, b, { 'Td-Activity': activityHeader(b as RrwebEvent[])! }), data: undefined }));
    expect(fromPayload.map(needsPayload)).toEqual([true, true]);
    expect(fromHeader.map(needsPayload)).toEqual([false, false]);
    expect(applyActivityMessages(fromHeader)).toEqual(applyActivityMessages(fromPayload));
    // A header it cannot read: the payload decides (and without one, the message is skipped).
    const broken = { ...ev(3, batches[1], { 'Td-Activity': '{"items":' }) };
    expect(needsPayload(broken)).toBe(true);
    expect(applyActivityMessages([broken]).rows.recording_activity).toHaveLength(2);
  });

  it('skips (acknowledges) payloads it cannot read, and metadata messages give nothing', () => {
    const out = applyActivityMessages([
      { ...ev(1, []), data: Buffer.from('not json') },
      { ...ev(2, []), data: Buffer.from('{"a":1}') },
      { ...ev(3, []), data: undefined },
      { seq: 4, subject: subject('meta'), timeMs: T0, headers: {} },
      { seq: 5, subject: 'td.other', timeMs: T0, headers: {} },
    ]);
    expect(out.skipped.map((s) => s.seq)).toEqual([1, 2, 3, 5]);
    expect(Object.values(out.rows).flat()).toEqual([]);
  });
});
