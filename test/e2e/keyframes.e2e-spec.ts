// The keyframe index (recording_keyframes) against the real stack: batches ingested with keyframes
// wholly in a batch and split over two (Meta, then FullSnapshot in the next batch) give the
// recording's ordered keyframes at the stream position of each one's Meta; windowed event reads
// open at exactly those keyframes; a deleted recording's keyframes are hidden at once and removed.
// Also run against the current ClickHouse engine (chDB) by scripts/test.sh.
import { randomUUID } from 'node:crypto';
import type { ClickHouse } from '../../src/infrastructure/clickhouse/clickhouse-client';
import { sql } from '../../src/infrastructure/clickhouse/sql';
import { JetStreamEventStore } from '../../src/infrastructure/nats/event-store';
import type { NatsClient } from '../../src/infrastructure/nats/nats-connection';
import { KeyframesRepository } from '../../src/read-model/keyframes.repository';
import { eventWindow } from '../../src/recordings/event-window';
import { WindowHints } from '../../src/recordings/window-hints.service';
import { testEnv } from '../harness/env';
import { api, sampleEvents } from '../harness/http';
import { pollUntil } from '../harness/poll-until';
import { appendBatch, clickhouse, natsClient, waitCaughtUp } from './projections-fixtures';

const T0 = Date.UTC(2033, 2, 1);
const step = (ts: number) => ({ type: 3, timestamp: ts, data: { source: 1, positions: [] } });
const [meta, snapshot] = sampleEvents(2, 0);

let ch: ClickHouse;
let nats: NatsClient;
let store: JetStreamEventStore;
let keyframes: KeyframesRepository;

beforeAll(async () => {
  ch = clickhouse();
  nats = await natsClient();
  store = new JetStreamEventStore(nats, 5000);
  keyframes = new KeyframesRepository(ch);
});

afterAll(async () => {
  await ch?.close();
  await nats?.close();
});

describe('the keyframe index', () => {
  it('keeps each recording its ordered keyframes, at the batch of their Meta', async () => {
    const { tenantId, secretKey } = testEnv();
    const rec = randomUUID();
    const at = (t: number) => T0 + t;
    const batches = [
      [{ ...meta, timestamp: at(0) }, { ...snapshot, timestamp: at(1) }, step(at(2))],
      [step(at(1000)), { ...meta, timestamp: at(1500) }], // its FullSnapshot comes in the next batch
      [{ ...snapshot, timestamp: at(1501) }, step(at(1600)), { ...meta, timestamp: at(2000) }, { ...snapshot, timestamp: at(2000) }, step(at(2100))],
      [step(at(3000)), { ...meta, timestamp: at(3500) }], // never followed by a FullSnapshot
      [step(at(4000))],
    ];
    const seqs: number[] = [];
    for (const events of batches) seqs.push((await appendBatch(store, tenantId, rec, events)).seq);
    const expected = [
      { ts: at(0), seq: seqs[0] },
      { ts: at(1500), seq: seqs[1] },
      { ts: at(2000), seq: seqs[2] },
    ];
    expect(
      await pollUntil(
        () => keyframes.keyframes(tenantId, rec),
        (k) => k.length >= 3,
        15_000,
      ),
    ).toEqual(expected);

    // Event windows open at those very keyframes, each with its Meta.
    for (const k of expected) {
      const r = await api(`/recordings/${rec}/events?from=epoch:${k.ts + 50}&limit=2`, { key: secretKey });
      expect(r.json().map((e: { type: number; timestamp: number }) => [e.type, e.timestamp])).toEqual([
        [4, k.ts],
        [2, k.ts === at(1500) ? at(1501) : k.ts + (k.ts === at(0) ? 1 : 0)],
      ]);
    }

    // Windowed reads start their headers pass at the first batch reaching the keyframe.
    await waitCaughtUp(nats);
    const hints = new WindowHints(keyframes, nats);
    const hinted = await hints.withHint(tenantId, rec, eventWindow({ from: { kind: 'epoch', value: at(2050) } }));
    expect(hinted?.hint).toEqual({ seq: seqs[2], ts: at(2000), first: at(0), last: at(4000) });
    expect((await hints.withHint(tenantId, rec, eventWindow({ from: { kind: 'epoch', value: at(1600) } })))?.hint).toMatchObject({
      seq: seqs[1],
      ts: at(1500),
    });

    expect((await api(`/recordings/${rec}`, { method: 'DELETE', key: secretKey })).status).toBe(204);
    expect(await keyframes.keyframes(tenantId, rec)).toEqual([]);
    const rows = () => ch.rows<{ n: string }>(sql`SELECT count() AS n FROM recording_keyframes WHERE tenant_id = ${tenantId} AND recording_id = ${rec}`);
    await pollUntil(rows, (r) => Number(r[0].n) === 0, 30_000, 200);
  });
});
