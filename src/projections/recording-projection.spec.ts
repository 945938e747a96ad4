import { summarizeBatch, headerJson } from '../domain/batch-summary';
import type { RrwebEvent } from '../domain/rrweb-event';
import { H } from '../infrastructure/nats/subjects';
import type { ProjectionMessage } from './projection';
import { T } from './projection-tables';
import { applyRecordingMessages, recordingProjection } from './recording-projection';

const TENANT = 'acme';
const REC = '0b5e8a2c-1111-4222-8333-444455556666';
const OTHER = '0b5e8a2c-9999-4222-8333-444455556666';
const subj = (kind: string, rec = REC, tenant = TENANT) => `td.rec.${tenant}.${rec}.${kind}`;

const events: RrwebEvent[] = [
  { type: 4, timestamp: 60_000, data: { href: 'https://e.test/a', width: 800, height: 600 } },
  { type: 2, timestamp: 60_001, data: {} },
  { type: 3, timestamp: 120_500, data: {} },
  { type: 5, timestamp: 120_600, data: { tag: 'recording-meta', payload: { plan: 'free', user: 'u1' } } },
  { type: 5, timestamp: 120_700, data: { tag: 'recording-meta', payload: { plan: 'pro' } } },
] as RrwebEvent[];

function ev(seq: number, opts: { batch?: string; chunk?: string; summary?: string | null; rec?: string; events?: RrwebEvent[] } = {}): ProjectionMessage {
  const summary = opts.summary === undefined ? headerJson(summarizeBatch(opts.events ?? events, 1234)) : (opts.summary ?? undefined);
  return {
    seq,
    subject: subj('ev', opts.rec),
    timeMs: 1_000_000 + seq,
    headers: { [H.batch]: opts.batch ?? `b${seq}`, [H.chunk]: opts.chunk, [H.summary]: summary },
  };
}
const meta = (seq: number, body: unknown, rec = REC): ProjectionMessage => ({
  seq,
  subject: subj('meta', rec),
  timeMs: 2_000_000 + seq,
  headers: { [H.batch]: `m${seq}` },
  data: body === undefined ? undefined : new TextEncoder().encode(JSON.stringify(body)),
});
const del = (seq: number, rec = REC): ProjectionMessage => ({ seq, subject: subj('del', rec), timeMs: 3_000_000 + seq, headers: {} });

describe('recording projection', () => {
  it('turns an ev summary into batch, minute and in-band metadata rows versioned by seq', () => {
    const out = applyRecordingMessages([ev(7)]);
    expect(out.skipped).toEqual([]);
    expect(out.rows[T.batches]).toEqual([
      {
        tenant_id: TENANT,
        recording_id: REC,
        batch_id: 'b7',
        seq: 7,
        event_count: 3,
        bytes: 1234,
        min_ts: 60_000,
        max_ts: 120_500,
        page_views: 1,
        meta_ts: 60_000,
        viewport_width: 800,
        viewport_height: 600,
        url: 'https://e.test/a',
        type_keys: [2, 3, 4],
        type_counts: [1, 1, 1],
        ingested_at: 1_000_007,
      },
    ]);
    // The same summary sorted by time, without event types (the unfiltered listing reads it).
    const { type_keys: _keys, type_counts: _counts, ...timelineRow } = out.rows[T.batches][0];
    expect(out.rows[T.timeline]).toEqual([timelineRow]);
    expect(out.rows[T.recordings]).toEqual([{ tenant_id: TENANT, recording_id: REC, started_at: 60_000, seq: 7 }]);
    expect(out.rows[T.metadataByKey]).toEqual(out.rows[T.metadata]);
    expect(out.rows[T.minutes]).toEqual([
      { tenant_id: TENANT, recording_id: REC, batch_id: 'b7', minute: 60_000, seq: 7, event_count: 2 },
      { tenant_id: TENANT, recording_id: REC, batch_id: 'b7', minute: 120_000, seq: 7, event_count: 1 },
    ]);
    // Later in-band keys win inside one message; every key carries the message's seq.
    expect(out.rows[T.metadata]).toEqual([
      { tenant_id: TENANT, recording_id: REC, key: 'plan', value: 'pro', seq: 7, written_at: 1_000_007 },
      { tenant_id: TENANT, recording_id: REC, key: 'user', value: 'u1', seq: 7, written_at: 1_000_007 },
    ]);
    expect(out.deletions).toEqual([]);
  });

  it('makes strings of summaries and metadata writes stored with lone surrogates well-formed (ClickHouse refuses them)', () => {
    // As stored before ingestion cleaned in-band metadata: the header's JSON escapes a lone surrogate.
    const summary = JSON.stringify({
      v: 1,
      n: 1,
      bytes: 1,
      minTs: 1,
      maxTs: 1,
      types: { 3: 1 },
      pv: 0,
      url: 'https://e.test/\ud800',
      meta: { 'k\udc00': 'v\ud800' },
      minutes: [],
    });
    const out = applyRecordingMessages([ev(1, { summary }), meta(2, { ['m\ud800']: 'x\udfff' })]);
    expect(out.rows[T.batches][0].url).toBe('https://e.test/\ufffd');
    expect(out.rows[T.metadata].map((r) => [r.key, r.value])).toEqual([
      ['k\ufffd', 'v\ufffd'],
      ['m\ufffd', 'x\ufffd'],
    ]);
  });

  it('times a recording by its events alone: in-band metadata neither starts nor ends it', () => {
    // The official client's recording-meta often precedes rrweb's first event, and pageview-meta can
    // arrive in a batch of its own; neither may move start, end or duration.
    const early = { type: 5, timestamp: 59_000, data: { tag: 'recording-meta', payload: { plan: 'free' } } } as RrwebEvent;
    const late = { type: 5, timestamp: 200_000, data: { tag: 'pageview-meta', payload: { page: '/b' } } } as RrwebEvent;
    const out = applyRecordingMessages([ev(1, { events: [early, ...events.slice(0, 3)] }), ev(2, { events: [late] })]);
    expect(out.skipped).toEqual([]);
    expect(out.rows[T.batches].map((r) => [r.seq, r.min_ts, r.max_ts, r.event_count])).toEqual([[1, 60_000, 120_500, 3]]);
    expect(out.rows[T.timeline].map((r) => r.seq)).toEqual([1]);
    expect(out.rows[T.recordings]).toEqual([{ tenant_id: TENANT, recording_id: REC, started_at: 60_000, seq: 1 }]);
    expect(out.rows[T.minutes].map((r) => r.seq)).toEqual([1, 1]);
    // The metadata-only batch still lands its metadata.
    expect(out.rows[T.metadata].map((r) => [r.key, r.value, r.seq])).toEqual([
      ['plan', 'free', 1],
      ['page', '/b', 2],
    ]);
    // Its summary keeps the metadata's own times: the read merge orders by them.
    expect(summarizeBatch([late], 10)).toMatchObject({ n: 0, minTs: 200_000, maxTs: 200_000 });
  });

  it("takes a chunked batch's rows from the chunk with the summary (the last; chunk 0 when stored before), and the batch id from Td-Batch (else seq-N)", () => {
    const chunked = applyRecordingMessages([
      ev(1, { batch: 'big', chunk: '0/3', summary: null }),
      ev(2, { batch: 'big', chunk: '1/3', summary: null }),
      ev(3, { batch: 'big', chunk: '2/3' }),
    ]);
    expect(chunked.rows[T.batches].map((r) => [r.batch_id, r.seq])).toEqual([['big', 3]]);
    expect(chunked.skipped).toEqual([]);
    // Cut short before its last chunk: nothing counted, nothing reported as unprojectable.
    const cut = applyRecordingMessages([ev(1, { batch: 'cut', chunk: '0/3', summary: null }), ev(2, { batch: 'cut', chunk: '1/3', summary: null })]);
    expect(cut.rows[T.batches]).toEqual([]);
    expect(cut.skipped).toEqual([]);
    const legacy = applyRecordingMessages([
      ev(1, { batch: 'old', chunk: '0/3' }),
      ev(2, { batch: 'old', chunk: '1/3', summary: null }),
      ev(3, { batch: 'old', chunk: '2/3', summary: null }),
    ]);
    expect(legacy.rows[T.batches].map((r) => [r.batch_id, r.seq])).toEqual([['old', 1]]);
    expect(legacy.skipped).toEqual([]);
    const noBatch = ev(9);
    noBatch.headers = { [H.summary]: noBatch.headers[H.summary] };
    expect(applyRecordingMessages([noBatch]).rows[T.batches][0].batch_id).toBe('seq-9');
  });

  it('skips (and reports) messages it can never project', () => {
    const out = applyRecordingMessages([
      ev(1, { summary: null }),
      ev(2, { summary: '{nope' }),
      ev(3, { summary: JSON.stringify({ v: 9 }) }),
      meta(4, undefined),
      meta(5, ['x']),
      { seq: 6, subject: 'td.rec.acme', timeMs: 0, headers: {} },
    ]);
    expect(out.skipped.map((s) => s.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(Object.values(out.rows).every((r) => r.length === 0)).toBe(true);
  });

  it('turns a metadata write into one row per key, versioned by seq so later writes win', () => {
    const out = applyRecordingMessages([meta(10, { plan: 'free', n: 3, ok: true }), meta(12, { plan: 'pro' })]);
    expect(out.rows[T.metadata].map((r) => [r.key, r.value, r.seq, r.written_at])).toEqual([
      ['plan', 'free', 10, 2_000_010],
      ['n', '3', 10, 2_000_010],
      ['ok', 'true', 10, 2_000_010],
      ['plan', 'pro', 12, 2_000_012],
    ]);
    expect(out.rows[T.metadataByKey]).toEqual(out.rows[T.metadata]);
  });

  it('remembers deletions, deletes older rows, and drops older messages of the same batch', () => {
    const out = applyRecordingMessages([ev(1), meta(2, { a: 'b' }), ev(3, { rec: OTHER }), del(4), del(5), ev(6)]);
    expect(out.rows[T.deleted]).toEqual([
      { tenant_id: TENANT, recording_id: REC, seq: 4, deleted_at: 3_000_004 },
      { tenant_id: TENANT, recording_id: REC, seq: 5, deleted_at: 3_000_005 },
    ]);
    expect(out.rows[T.batches].map((r) => [r.recording_id, r.seq])).toEqual([
      [OTHER, 3],
      [REC, 6],
    ]);
    expect(out.rows[T.metadata].every((r) => r.seq !== 2)).toBe(true);
    expect(out.rows[T.recordings].map((r) => r.recording_id)).toEqual([OTHER, REC]);
    expect(out.deletions).toEqual([
      { tables: [T.batches, T.timeline, T.minutes, T.keyframes, T.recordings, T.metadata, T.metadataByKey], tenantId: TENANT, recordingId: REC, beforeSeq: 5 },
    ]);
  });

  it('turns the keyframe fields of a summary into recording_keyframes rows at the message seq', () => {
    const split: RrwebEvent[] = [
      { type: 3, timestamp: 1, data: {} },
      { type: 4, timestamp: 2, data: {} },
      { type: 2, timestamp: 3, data: {} },
      { type: 4, timestamp: 9, data: {} },
    ];
    const opening: RrwebEvent[] = [{ type: 2, timestamp: 10, data: {} }];
    const out = applyRecordingMessages([ev(1), ev(4, { events: split }), ev(5, { events: opening })]);
    const key = { tenant_id: TENANT, recording_id: REC };
    expect(out.rows[T.keyframes]).toEqual([
      { ...key, kind: 'kf', ts: 60_000, seq: 1 },
      { ...key, kind: 'kf', ts: 2, seq: 4 },
      { ...key, kind: 'meta', ts: 9, seq: 4 },
      { ...key, kind: 'open', ts: 10, seq: 5 },
    ]);
    // A summary without keyframe fields (every batch stored before them) gives none.
    expect(applyRecordingMessages([ev(6, { events: [{ type: 3, timestamp: 1, data: {} }] as RrwebEvent[] })]).rows[T.keyframes]).toEqual([]);
  });

  it('turns a server-made keyframe into one recording_keyframes row and nothing else, a failed attempt too', () => {
    const kf = (seq: number, header: string | undefined): ProjectionMessage => ({
      seq,
      subject: subj('kf'),
      timeMs: 4_000_000 + seq,
      headers: { [H.keyframe]: header },
    });
    const out = applyRecordingMessages([kf(20, '{"v":1,"ts":90000,"ok":true}'), kf(21, '{"v":1,"ts":95000,"ok":false,"reason":"x"}'), kf(22, undefined)]);
    expect(out.rows[T.keyframes]).toEqual([
      { tenant_id: TENANT, recording_id: REC, kind: 'server', ts: 90_000, seq: 20 },
      { tenant_id: TENANT, recording_id: REC, kind: 'failed', ts: 95_000, seq: 21 },
    ]);
    for (const t of [T.batches, T.timeline, T.recordings, T.minutes, T.metadata]) expect(out.rows[t]).toEqual([]);
    expect(out.skipped).toEqual([{ seq: 22, reason: 'no readable Td-Keyframe header' }]);
    // A deletion marker later in the batch removes it like any row of the recording.
    expect(applyRecordingMessages([kf(20, '{"v":1,"ts":90000,"ok":true}'), del(23)]).rows[T.keyframes]).toEqual([]);
  });

  it('is deterministic: applying the same messages again gives the same rows', () => {
    const batch = [ev(1), meta(2, { k: 'v' }), del(3, OTHER)];
    expect(applyRecordingMessages(batch)).toEqual(applyRecordingMessages(batch));
  });

  it('declares its consumer filter, tables and payload needs', () => {
    expect(recordingProjection.filterSubject).toBe('td.rec.>');
    expect(recordingProjection.tables).toEqual([T.batches, T.timeline, T.minutes, T.keyframes, T.recordings, T.metadata, T.metadataByKey, T.deleted]);
    expect(recordingProjection.bodyKinds).toEqual(['meta']);
  });
});
