// Windowed reads against the real nats-server: a window reads the payloads of the batches it needs
// and no others (counted at the scanner), begins at the keyframe at or before `from` (its Meta first,
// also when the Meta and its FullSnapshot were stored in two batches), takes a batch stored late,
// and ends at `to` or after `limit` events. Each answer equals the same cut of the full read.
import { randomBytes, randomUUID } from 'node:crypto';
import { summarizeBatch } from '../../src/domain/batch-summary';
import type { RawEvent, ReadWindow } from '../../src/domain/event-store';
import type { RrwebEvent } from '../../src/domain/rrweb-event';
import { ArchiveStore } from '../../src/infrastructure/nats/archive-store';
import { EventDeleter } from '../../src/infrastructure/nats/event-deleter';
import { EventReader } from '../../src/infrastructure/nats/event-reader';
import { JetStreamEventStore } from '../../src/infrastructure/nats/event-store';
import { MessageScanner, ScanOptions } from '../../src/infrastructure/nats/message-scan';
import type { NatsClient } from '../../src/infrastructure/nats/nats-connection';
import { RecordingMessages } from '../../src/infrastructure/nats/recording-messages';
import { natsClient } from '../e2e/projections-fixtures';

jest.setTimeout(60_000);

const tenantId = `t_window_${randomBytes(4).toString('hex')}`;
const T0 = 1_800_000_000_000;
const BATCHES = 40;
/** Batch b holds ten events at T0 + b * 1000 + i * 10; keyframes open batches 0, 10 and 30, and one is split over 19 (Meta) and 20 (FullSnapshot). */
function batch(b: number): RrwebEvent[] {
  const ts = (i: number) => T0 + b * 1000 + i * 10;
  const events: RrwebEvent[] = Array.from({ length: 10 }, (_, i) => ({ type: 3, timestamp: ts(i), data: { b, i, pad: 'x'.repeat(2000) } }));
  if (b % 10 === 0 && b !== 20) [events[0].type, events[1].type] = [4, 2];
  if (b === 19) events[9].type = 4;
  if (b === 20) events[0].type = 2;
  return events;
}

class CountingScanner extends MessageScanner {
  payloads = 0;
  headers = 0;
  override async *scan(subject: string, o: ScanOptions) {
    for await (const m of super.scan(subject, o)) {
      if (o.headersOnly) this.headers++;
      else this.payloads++;
      yield m;
    }
  }
}

let nats: NatsClient;
let scanner: CountingScanner;
let reader: EventReader;
const recordingId = randomUUID();
let full: RawEvent[];
const seqs: number[] = [];

beforeAll(async () => {
  nats = await natsClient();
  const store = new JetStreamEventStore(nats, 10_000);
  const append = async (b: number, events = batch(b)) => {
    const payload = Buffer.from(JSON.stringify(events), 'utf8');
    seqs[b] = (await store.appendBatch(tenantId, recordingId, `batch-${b}`, payload, summarizeBatch(events, payload.length))).seq;
  };
  for (let b = 0; b < BATCHES; b++) if (b !== 25) await append(b);
  await append(25); // stored last: a window over batch 25 must still find it
  const messages = new RecordingMessages(nats, 10_000);
  scanner = new CountingScanner(nats);
  reader = new EventReader(messages, scanner, new EventDeleter(messages, scanner), new ArchiveStore(nats));
  full = await read();
  scanner.payloads = 0;
});

afterAll(async () => {
  await nats?.close();
});

async function read(window?: ReadWindow): Promise<RawEvent[]> {
  const out: RawEvent[] = [];
  for await (const run of reader.readRaw(tenantId, recordingId, { window })) out.push(...run);
  return out;
}

const epoch = (from?: number, to?: number, limit?: number): ReadWindow => ({ resolve: () => ({ from, to }), limit });
const json = (events: RawEvent[]) => events.map((e) => Buffer.from(e.json).toString());
/** The full read cut as a window must be: from the Meta at `startTs` (or the start), up to `to`, `limit` events. */
function expected(startTs: number | undefined, to = Infinity, limit = Infinity): string[] {
  const start = startTs === undefined ? 0 : full.findIndex((e) => e.timestamp === startTs && e.type === 4);
  return json(full.slice(start).filter((e) => e.timestamp <= to)).slice(0, limit);
}
async function windowed(w: ReadWindow) {
  scanner.payloads = 0;
  scanner.headers = 0;
  const events = await read(w);
  return { events: json(events), payloads: scanner.payloads, headers: scanner.headers };
}
const hint = (seq: number, ts: number) => ({ seq, ts, first: T0, last: T0 + 39_090 });

describe('windowed reads', () => {
  it('the full read is every batch in time order (the late batch in its place)', () => {
    expect(full).toHaveLength(BATCHES * 10);
    expect(full.map((e) => e.timestamp)).toEqual([...full.map((e) => e.timestamp)].sort((a, b) => a - b));
  });

  it('reads the last batches only for a window at the end', async () => {
    const r = await windowed(epoch(T0 + 38_500));
    expect(r.events).toEqual(expected(T0 + 30_000));
    expect(r.payloads).toBe(10); // batches 30 to 39, of 40
  });

  it("starts at a Meta stored in the batch before its FullSnapshot's, and takes the batch stored late", async () => {
    const r = await windowed(epoch(T0 + 25_050, T0 + 26_000));
    expect(r.events).toEqual(expected(T0 + 19_090, T0 + 26_000));
    expect(r.events[0]).toContain('"type":4');
    // Batches 19 to 26 are 8; the late batch 25 is read where it was stored, after batch 39.
    expect(r.payloads).toBe(BATCHES - 19);
  });

  it('ends at to, and after limit events, reading no further batch', async () => {
    const r = await windowed(epoch(T0 + 12_000, T0 + 14_005));
    expect(r.events).toEqual(expected(T0 + 10_000, T0 + 14_005));
    expect(r.payloads).toBe(5); // 10 to 14
    const limited = await windowed(epoch(T0 + 12_000, undefined, 15));
    expect(limited.events).toEqual(expected(T0 + 10_000, Infinity, 15));
    expect(limited.payloads).toBe(2);
  });

  it("reads headers from a hint's position when it holds, and all of them when it does not", async () => {
    const expect30 = expected(T0 + 30_000);
    const whole = await windowed(epoch(T0 + 38_500));
    expect(whole.headers).toBe(BATCHES);
    const hinted = await windowed({ ...epoch(T0 + 38_500), hint: hint(seqs[30], T0 + 30_000) });
    expect(hinted).toEqual({ events: expect30, payloads: 10, headers: 11 }); // batches 30 to 39, and 25 stored last
    // A hint above the keyframe's batch: the plan finds no keyframe there and reads every header again.
    const wrong = await windowed({ ...epoch(T0 + 38_500), hint: hint(seqs[31], T0 + 30_000) });
    expect(wrong).toEqual({ events: expect30, payloads: 10, headers: 10 + BATCHES });
    // The split keyframe: its Meta's batch 19, and the late batch 25 stored last, are both after the hint.
    const split = await windowed({ ...epoch(T0 + 25_050, T0 + 26_000), hint: hint(seqs[19], T0 + 19_090) });
    expect(split.events).toEqual(expected(T0 + 19_090, T0 + 26_000));
    expect(split.headers).toBe(BATCHES - 19);
  });

  it('reads from the start when no keyframe is at or before from, and a window of limit only is the first events', async () => {
    expect((await windowed(epoch(T0 - 5, T0 + 1500))).events).toEqual(expected(undefined, T0 + 1500));
    const limited = await windowed(epoch(undefined, undefined, 3));
    expect(limited.events).toEqual(json(full.slice(0, 3)));
    expect(limited.payloads).toBe(1);
  });
});
