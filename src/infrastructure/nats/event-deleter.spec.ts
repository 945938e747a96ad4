import type { ArchiveStore } from './archive-store';
import { EventDeleter } from './event-deleter';
import type { MessageScanner } from './message-scan';
import type { NatsClient } from './nats-connection';
import type { RecordingMessages } from './recording-messages';
import { formatSealedRef } from './sealed-record';
import { H, recordingSubject } from './subjects';

const EV = recordingSubject('t', 'r', 'ev');
const DEL = recordingSubject('t', 'r', 'del');

interface Msg {
  seq: number;
  subject: string;
  sealed?: { a: string; s: number };
}

/**
 * A stream of one recording: `stored` messages, a marker published at `markerSeq`, and a racing
 * seal that publishes `racing` the first time the deleter deletes anything above the marker.
 */
function fixture(stored: Msg[], o: { markerSeq: number; racing?: Msg[]; state?: { state: string; archive: string }; bucket?: string[] }) {
  const msgs = new Map(stored.map((m) => [m.seq, m]));
  const deleted: number[][] = [];
  const archivesDeleted: string[] = [];
  let state = o.state;
  let racing = o.racing ?? [];
  const headersOf = (m: Msg) => ({ get: (k: string) => (k === H.sealed && m.sealed ? formatSealedRef({ ...m.sealed, t: 0 }) : '') });
  const messages = {
    assertConnected: () => undefined,
    publish: async () => {
      msgs.set(o.markerSeq, { seq: o.markerSeq, subject: DEL });
      return { seq: o.markerSeq };
    },
    lastSeq: async (subject: string) => [...msgs.values()].filter((m) => m.subject === subject).pop()?.seq,
    last: async (subject: string) => {
      const m = [...msgs.values()].filter((x) => x.subject === subject).pop();
      return m && { seq: m.seq, header: headersOf(m) };
    },
    holdsBelow: async (_t: string, _r: string, seq: number) => [...msgs.keys()].some((s) => s < seq && msgs.get(s)!.subject !== DEL),
    counts: async () => {
      const n = (subject: string) => [...msgs.values()].filter((m) => m.subject === subject).length;
      return { ev: n(EV), meta: 0, del: n(DEL), kf: 0 };
    },
    deleteEach: async (seqs: number[]) => {
      deleted.push(seqs);
      for (const s of seqs) msgs.delete(s);
      if (seqs.some((s) => s > o.markerSeq)) {
        for (const m of racing) msgs.set(m.seq, m);
        racing = [];
      }
      return seqs.length;
    },
  } as unknown as RecordingMessages;
  const scanner = {
    async *scan(subject: string, opts: { startSeq: number }) {
      const all = [...msgs.values()].sort((a, b) => a.seq - b.seq);
      for (const m of all) {
        if (m.seq < opts.startSeq || (subject === EV && m.subject !== EV)) continue;
        yield { seq: m.seq, headers: headersOf(m) };
      }
    },
  } as unknown as MessageScanner;
  const archives = {
    delete: async (name: string) => void archivesDeleted.push(name),
    list: async () => (o.bucket ?? []).filter((name) => !archivesDeleted.includes(name)).map((name) => ({ name, size: 1, mtime: '' })),
  } as unknown as ArchiveStore;
  const kv = {
    get: async () => (state ? { operation: 'PUT', value: new TextEncoder().encode(JSON.stringify(state)) } : null),
    purge: async () => void (state = undefined),
  };
  const nats = { js: { views: { kv: async () => kv } } } as unknown as NatsClient;
  return { deleter: new EventDeleter(messages, scanner, archives, nats), msgs, deleted, archivesDeleted, state: () => state };
}

const raw = (seq: number): Msg => ({ seq, subject: EV });
const record = (seq: number, s: number, a = 't.r.3'): Msg => ({ seq, subject: EV, sealed: { a, s } });

describe('EventDeleter and a seal racing a deletion', () => {
  it("deletes a racing seal's records above its marker, those published while it deletes too, and their archive", async () => {
    const f = fixture([raw(1), raw(2), raw(3), record(11, 1)], {
      markerSeq: 10,
      racing: [record(12, 2), record(13, 3)],
      state: { state: 'sealing', archive: 't.r.3' },
    });
    // The marker lands at 10, between the seal's reading (up to 3) and its first record (11).
    const { markerSeq } = await f.deleter.deleteRecording('t', 'r');
    expect(markerSeq).toBe(10);
    expect(f.deleted).toEqual([[1, 2, 3], [11], [12, 13]]);
    expect([...f.msgs.keys()]).toEqual([10]);
    expect(f.archivesDeleted).toEqual(['t.r.3']);
    expect(f.state()).toBeUndefined();
  });

  it('keeps the records of a later recording of the same id (they replaced messages above the marker)', async () => {
    const f = fixture([{ seq: 10, subject: DEL }, record(12, 11, 't.r.11')], { markerSeq: 10, state: { state: 'sealed', archive: 't.r.11' } });
    const counts = await f.deleter.settle('t', 'r', { ev: 1, meta: 0, del: 1, kf: 0 });
    expect(counts).toEqual({ ev: 1, meta: 0, del: 1, kf: 0 });
    expect(f.deleted).toEqual([]);
    expect(f.archivesDeleted).toEqual([]);
    expect(f.state()).toEqual({ state: 'sealed', archive: 't.r.11' });
  });

  it("settles a recording whose deletion finished before a dead seal's records went in: they go, with their archive", async () => {
    const f = fixture([{ seq: 10, subject: DEL }, record(11, 1), record(12, 2)], { markerSeq: 10 });
    const counts = await f.deleter.settle('t', 'r', { ev: 2, meta: 0, del: 1, kf: 0 });
    expect(counts).toEqual({ ev: 0, meta: 0, del: 1, kf: 0 });
    expect(f.deleted).toEqual([[], [11, 12]]);
    expect(f.archivesDeleted).toEqual(['t.r.3']);
  });

  it('deletes the archive a seal state names below the marker once no batch is left (a seal cut short before its records)', async () => {
    const f = fixture([{ seq: 10, subject: DEL }], { markerSeq: 10, state: { state: 'sealing', archive: 't.r.3' } });
    await f.deleter.deleteSealLeftovers('t', 'r');
    expect(f.archivesDeleted).toEqual(['t.r.3']);
    expect(f.state()).toBeUndefined();
  });

  it('sweeps the archives a seal put below a marker and named nowhere (it died before its state and records were found), keeping later ones', async () => {
    // Recording t/r was deleted at 10 (no batch left, no seal state); t/other was never deleted.
    const f = fixture([{ seq: 10, subject: DEL }], { markerSeq: 10, bucket: ['t.r.3', 't.r.7', 't.r.11', 't.other.2', 'not-an-archive'] });
    expect(await f.deleter.sweepDeletedArchives()).toBe(2);
    expect(f.archivesDeleted.sort()).toEqual(['t.r.3', 't.r.7']);
    expect(await f.deleter.sweepDeletedArchives()).toBe(0);
  });

  it('sweeps with the seal state naming the archive, and leaves a state naming a later one', async () => {
    const f = fixture([{ seq: 10, subject: DEL }], { markerSeq: 10, bucket: ['t.r.3'], state: { state: 'sealing', archive: 't.r.3' } });
    await f.deleter.sweepDeletedArchives();
    expect(f.state()).toBeUndefined();
    const later = fixture([{ seq: 10, subject: DEL }], { markerSeq: 10, bucket: ['t.r.3', 't.r.12'], state: { state: 'sealed', archive: 't.r.12' } });
    await later.deleter.sweepDeletedArchives();
    expect(later.archivesDeleted).toEqual(['t.r.3']);
    expect(later.state()).toEqual({ state: 'sealed', archive: 't.r.12' });
  });
});
