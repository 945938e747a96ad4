// Sealing against the real nats-server: a sealed recording reads the same bytes as its unsealed twin
// (whole, windows, live-feed ranges), late batches merge in order and are sealed again as a new
// generation, each step of a seal cut short is finished by the next seal with nothing lost or doubled,
// and a deletion (also one racing a seal) leaves no archive behind.
import { randomBytes, randomUUID } from 'node:crypto';
import { summarizeBatch } from '../../src/domain/batch-summary';
import type { ReadOptions } from '../../src/domain/event-store';
import type { RrwebEvent } from '../../src/domain/rrweb-event';
import { ArchiveStore } from '../../src/infrastructure/nats/archive-store';
import { JetStreamEventStore } from '../../src/infrastructure/nats/event-store';
import type { NatsClient } from '../../src/infrastructure/nats/nats-connection';
import { RecordingSealer, SealOutcome, SealStep } from '../../src/infrastructure/nats/recording-sealer';
import { SealStates } from '../../src/infrastructure/nats/seal-states';
import { RecordingEventsService } from '../../src/recordings/recording-events.service';
import { natsClient } from '../e2e/projections-fixtures';
import { evMessages as sealedMessages } from '../harness/stream-messages';

jest.setTimeout(120_000);

const tenantId = `t_arch_${randomBytes(4).toString('hex')}`;
const T0 = 1_900_000_000_000;
/** Batch b: twenty events from T0 + b * 1000 (one of them out of order), keyframes every fourth batch. */
function batch(b: number, big = false): RrwebEvent[] {
  const ts = (i: number) => T0 + b * 1000 + i * 50;
  const events: RrwebEvent[] = Array.from({ length: 20 }, (_, i) => ({ type: 3, timestamp: ts(i), data: { b, i, pad: 'y'.repeat(big ? 70_000 : 300) } }));
  if (b % 4 === 0) [events[0].type, events[1].type] = [4, 2];
  events[5].timestamp = ts(0); // ties across batches keep arrival order
  return events;
}

let nats: NatsClient;
let store: JetStreamEventStore;
let archives: ArchiveStore;
let states: SealStates;
/** Stream sequence of each batch appended by twins(), by `recording/batch`. */
const seqs = new Map<string, number>();

const sealer = (onStep?: (s: SealStep) => Promise<void> | void) =>
  new RecordingSealer(nats, archives, states, { publishTimeoutMs: 10_000, removeDelayMs: 0, onStep });

async function append(recordingId: string, b: number, events = batch(b), id = `batch-${b}`) {
  const payload = Buffer.from(JSON.stringify(events), 'utf8');
  return store.appendBatch(tenantId, recordingId, id, payload, summarizeBatch(events, payload.length));
}

/** A read's bytes, as GET …/events would pass them through (events joined). */
async function read(recordingId: string, opts: ReadOptions = {}): Promise<string> {
  const parts: string[] = [];
  for await (const run of store.readRaw(tenantId, recordingId, opts)) for (const e of run) parts.push(Buffer.from(e.json).toString('utf8'));
  return `[${parts.join(',')}]`;
}

/** The GET …/events body, and whether the archive answered it ready-made. */
async function body(recordingId: string): Promise<{ bytes: string; stored: boolean }> {
  const parts: Buffer[] = [];
  for await (const chunk of new RecordingEventsService(store).streamEvents(tenantId, recordingId)) parts.push(chunk as Buffer);
  return { bytes: Buffer.concat(parts).toString('utf8'), stored: (await store.readForResponse(tenantId, recordingId)).stored !== undefined };
}

/**
 * The JetStream API requests naming the recording that one GET …/events read makes, by kind: `last`
 * (a last-message lookup), `counts` (stream info filtered to it), `scans` (a read consumer: one
 * per pass over its messages). Seen by listening on $JS.API.> on the same connection.
 */
async function requestsOfRead(recordingId: string): Promise<Record<string, number>> {
  const seen: Record<string, number> = {};
  const kinds: [string, string][] = [
    ['$JS.API.STREAM.MSG.GET.', 'last'],
    ['$JS.API.DIRECT.GET.', 'last'],
    ['$JS.API.STREAM.INFO.', 'counts'],
    ['$JS.API.CONSUMER.CREATE.', 'scans'],
  ];
  const sub = nats.nc.subscribe('$JS.API.>', {
    callback: (_err, m) => {
      if (!m.subject.includes(recordingId) && !Buffer.from(m.data).toString('utf8').includes(recordingId)) return;
      const kind = kinds.find(([prefix]) => m.subject.startsWith(prefix))?.[1] ?? m.subject;
      seen[kind] = (seen[kind] ?? 0) + 1;
    },
  });
  await nats.nc.flush();
  for await (const chunk of new RecordingEventsService(store).streamEvents(tenantId, recordingId)) void chunk;
  await nats.nc.flush();
  sub.unsubscribe();
  return seen;
}

const windowOf = (from: number, to?: number, limit?: number): ReadOptions => ({ window: { resolve: () => ({ from, to }), limit } });

/** Every read that must not change by sealing. */
async function reads(recordingId: string): Promise<string[]> {
  return [await read(recordingId), await read(recordingId, windowOf(T0 + 5_500, T0 + 9_000)), await read(recordingId, windowOf(T0 + 2_100, undefined, 30))];
}

const evMessages = (recordingId: string) => sealedMessages(nats, tenantId, recordingId);

/** Two recordings given the same batches: `a` gets sealed, `b` is the unsealed twin. */
async function twins(batches: number[], dup?: number): Promise<[string, string]> {
  const a = randomUUID();
  const b = randomUUID();
  for (const n of batches) for (const r of [a, b]) seqs.set(`${r}/${n}`, (await append(r, n, batch(n, n === 3))).seq);
  if (dup !== undefined) for (const r of [a, b]) await append(r, dup, batch(dup), `again-${dup}`);
  return [a, b];
}

beforeAll(async () => {
  nats = await natsClient();
  archives = new ArchiveStore(nats);
  states = new SealStates(nats);
  store = new JetStreamEventStore(nats, 10_000, undefined, archives);
});

afterAll(async () => {
  await nats?.close();
});

describe('sealing a recording', () => {
  it('reads the same bytes sealed as unsealed, keeps no payload in the stream, and seals late batches as a new generation', async () => {
    // Batch 3 is above max_payload (chunked); batch 6 arrives late; batch 2 is stored twice under another id.
    const [a, b] = await twins([0, 1, 2, 3, 4, 5, 7, 8, 6, 9, 10, 11], 2);
    const before = await reads(b);
    expect(await reads(a)).toEqual(before);
    const whole = await body(b);
    expect(whole.stored).toBe(false);
    const first = await sealer().seal(tenantId, a);
    expect(first).toMatchObject({ status: 'sealed', batches: 13 });
    if (first.status !== 'sealed') throw new Error('not sealed');
    expect(first.archiveBytes).toBeLessThan(first.rawBytes / 5);
    expect(await evMessages(a)).toEqual({ sealed: 13, raw: 0 });
    expect(await reads(a)).toEqual(before);
    // The whole read passes the archive's response on, the same bytes as the merge gives.
    expect(await body(a)).toEqual({ ...whole, stored: true });
    expect(await sealer().seal(tenantId, a)).toEqual({ status: 'unchanged', archive: first.archive });

    // Late events: read merged in order, then sealed again; the first archive goes once the second is verified.
    for (const r of [a, b])
      await append(
        r,
        12,
        batch(12).map((e) => ({ ...e, timestamp: e.timestamp - 7_000 })),
        'late',
      );
    const late = await reads(b);
    expect(late).not.toEqual(before);
    expect(await reads(a)).toEqual(late);
    const lateWhole = await body(b);
    expect(await body(a)).toEqual(lateWhole);
    const second = await sealer().seal(tenantId, a);
    expect(second).toMatchObject({ status: 'sealed', batches: 14 });
    if (second.status !== 'sealed') throw new Error('not sealed');
    expect(await archives.get(first.archive)).toBeUndefined();
    expect(await reads(a)).toEqual(late);
    expect(await body(a)).toEqual({ ...lateWhole, stored: true });
    expect(await evMessages(a)).toEqual({ sealed: 14, raw: 0 });

    // The live feed's ranges count in the replaced messages' sequences.
    const after = (r: string) => read(r, { seqs: { after: seqs.get(`${r}/8`) } });
    expect(await after(a)).toEqual(await after(b));
    expect(await after(a)).not.toEqual(late[0]);

    await store.deleteRecording(tenantId, a);
    expect(await archives.get(second.archive)).toBeUndefined();
    expect(await states.get(tenantId, a)).toBeUndefined();
    expect(await store.exists(tenantId, a)).toBe(false);
  });

  it('decides a whole read from its own headers pass: no lookup of the last message, one headers pass when a sealed recording merges', async () => {
    const [a] = await twins([0, 1, 2, 3]);
    // Counts, the headers pass, the payload pass.
    expect(await requestsOfRead(a)).toEqual({ counts: 1, scans: 2 });
    await sealer().seal(tenantId, a);
    // Counts, the headers pass, then the archive's stored response.
    expect(await requestsOfRead(a)).toEqual({ counts: 1, scans: 1 });
    expect((await body(a)).stored).toBe(true);
    await append(a, 4);
    // Late batch: counts and headers once, then the merge's payload pass.
    expect(await requestsOfRead(a)).toEqual({ counts: 1, scans: 2 });
    expect((await body(a)).stored).toBe(false);
    // A seal cut short after its records were published: the last message is a record, the replaced
    // messages are still there, so the read merges, from the same one headers pass.
    await expect(sealer((s) => (s === 'published' ? Promise.reject(new Error('cut')) : undefined)).seal(tenantId, a)).rejects.toThrow('cut');
    expect(await requestsOfRead(a)).toEqual({ counts: 1, scans: 2 });
    expect((await body(a)).stored).toBe(false);
  });

  it('answers a whole read of a large sealed recording from its first and last record and the count: no headers pass', async () => {
    const [a, b] = await twins(Array.from({ length: 40 }, (_, n) => n));
    // Not sealed: one lookup of the last message more (not a record: the headers pass decides).
    expect(await requestsOfRead(a)).toEqual({ counts: 1, last: 1, scans: 2 });
    await sealer().seal(tenantId, a);
    // Its last and first message, then the archive's stored response.
    expect(await requestsOfRead(a)).toEqual({ counts: 1, last: 2 });
    expect(await body(a)).toEqual({ ...(await body(b)), stored: true });
    await append(a, 40);
    await append(b, 40);
    // A late batch is the last message: the headers pass and the merge.
    expect(await requestsOfRead(a)).toEqual({ counts: 1, last: 1, scans: 2 });
    expect(await body(a)).toEqual({ ...(await body(b)), stored: false });
  });

  it.each<SealStep>(['sealing', 'archived', 'published', 'removing'])(
    'finishes a seal cut short after step "%s", nothing lost or doubled meanwhile',
    async (step) => {
      const [a, b] = await twins([0, 1, 2, 3, 4, 5, 6]);
      const before = await reads(b);
      const cut = sealer((s) => {
        if (s === step) throw new Error(`cut after ${s}`);
      });
      await expect(cut.seal(tenantId, a)).rejects.toThrow(`cut after ${step}`);
      expect(await reads(a)).toEqual(before);
      const done = await sealer().seal(tenantId, a);
      expect(done.status).toBe('sealed');
      expect(await reads(a)).toEqual(before);
      expect(await evMessages(a)).toEqual({ sealed: 7, raw: 0 });
      // One archive left: the recording's own.
      const mine = (await archives.list()).filter((o) => o.name.startsWith(`${tenantId}.${a}.`));
      expect(mine.map((o) => o.name)).toEqual([(done as { archive: string }).archive]);
    },
  );

  it('keeps the archive when another seal of the same messages (another projector) commits it first', async () => {
    const [a, b] = await twins([0, 1, 2]);
    const before = await reads(b);
    let other: SealOutcome | undefined;
    // The second seal runs whole while the first holds its verified archive: same messages, same archive name.
    const first = await sealer(async (s) => {
      if (s === 'archived' && !other) other = await sealer().seal(tenantId, a);
    }).seal(tenantId, a);
    expect(first).toEqual({ status: 'busy' });
    expect(other).toMatchObject({ status: 'sealed', batches: 3 });
    expect(await reads(a)).toEqual(before);
    expect(await evMessages(a)).toEqual({ sealed: 3, raw: 0 });
    const mine = (await archives.list()).filter((o) => o.name.startsWith(`${tenantId}.${a}.`));
    expect(mine.map((o) => o.name)).toEqual([(other as { archive: string }).archive]);
    expect(await states.get(tenantId, a)).toMatchObject({ state: 'sealed' });
  });

  it('backs off when a batch arrives while sealing, and leaves nothing when the recording is deleted while sealing', async () => {
    const [a, b] = await twins([0, 1, 2]);
    const busy = await sealer(async (s) => {
      if (s !== 'archived') return;
      await append(a, 5);
      await append(b, 5);
    }).seal(tenantId, a);
    expect(busy).toEqual({ status: 'busy' });
    expect(await reads(a)).toEqual(await reads(b));
    expect(await evMessages(a)).toEqual({ sealed: 0, raw: 4 });

    const deleted = await sealer(async (s) => {
      if (s === 'published') await store.deleteRecording(tenantId, a);
    }).seal(tenantId, a);
    expect(deleted).toEqual({ status: 'deleted' });
    expect(await store.exists(tenantId, a)).toBe(false);
    expect((await archives.list()).filter((o) => o.name.startsWith(`${tenantId}.${a}.`))).toEqual([]);
    expect(await states.get(tenantId, a)).toBeUndefined();
    expect(await read(a)).toBe('[]');
  });
});
