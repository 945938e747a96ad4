// Seals a recording (docs/archives.md): its batches, in the order a read plans them, and the body a
// full read answers for them go into one archive object; each batch message is replaced by a
// payload-less sealed batch record (same Td-Batch and Td-Summary, Td-Sealed naming the archive and
// the replaced message's sequence, time and chunk).
// Steps, each safe to cut short (a rerun finishes or redoes it, from what the stream holds):
//   1. read every `ev` message (payloads of earlier records from their archive) and plan the batches;
//   2. seal state "sealing" (names the archive for deletions and the sweep), put the archive, read it
//      back and verify count and checksum;
//   3. publish the records, each expecting the subject's last sequence to be the previous one (a late
//      batch or a deletion in between makes the job back off: nothing of it stays); the last record is
//      the commit point: from then on reads take the archive's payloads;
//   4. after `removeDelayMs` (reads planned on the old messages finish), delete the old messages and
//      archives, then seal state "sealed".
// Until step 4 ends the recording holds its batches twice (old messages and records): reads and
// projections collapse a batch repeated under one Td-Batch, so nothing is doubled.
import { Logger } from '@nestjs/common';
import { headers as natsHeaders, JsMsg } from 'nats';
import { ArchivedBatch, encodeArchive, verifyArchive } from './archive-format';
import { archiveResponse } from './archive-response';
import { StoreUnavailable } from '../../common/app-error';
import { ArchiveStore, archiveName } from './archive-store';
import { EventDeleter } from './event-deleter';
import { MessageHead, orderBatches, planKey } from './event-order';
import { isWrongLastSequence } from './jetstream-errors';
import { MessageScanner } from './message-scan';
import type { NatsClient } from './nats-connection';
import { RecordingMessages } from './recording-messages';
import { formatSealedRef, parseSealedRef, SealedRef } from './sealed-record';
import { SealState, SealStates } from './seal-states';
import { H, recordingSubject } from './subjects';

export type SealOutcome =
  | { status: 'sealed'; archive: string; batches: number; rawBytes: number; archiveBytes: number }
  /** Already sealed whole: nothing to do. */
  | { status: 'unchanged'; archive: string }
  /** No events (never had any, or deleted). */
  | { status: 'empty' }
  /** A batch arrived, or the recording was deleted, while sealing: nothing of this job stays; try later. */
  | { status: 'busy' | 'deleted' };

/**
 * Test hook: the step after which a seal stops dead (crash tests SIGKILL the process there): `sealing`
 * (its seal state written, the archive not yet), `archived`, `published` (the commit), `removing`.
 */
export type SealStep = 'sealing' | 'archived' | 'published' | 'removing';

interface Stored {
  seq: number;
  timeMs: number;
  batch: string;
  chunk?: string;
  summary?: string;
  sealed?: SealedRef;
  data: Uint8Array;
}

export interface SealerOptions {
  publishTimeoutMs: number;
  /** Pause between the commit (step 3) and deleting what it replaced (step 4). */
  removeDelayMs: number;
  /** Crash tests: called after each step. */
  onStep?: (step: SealStep) => Promise<void> | void;
}

export class RecordingSealer {
  private readonly logger = new Logger('archives');
  private readonly messages: RecordingMessages;
  private readonly scanner: MessageScanner;
  private readonly deleter: EventDeleter;

  constructor(
    private readonly nats: NatsClient,
    private readonly archives: ArchiveStore,
    private readonly states: SealStates,
    private readonly opts: SealerOptions,
  ) {
    this.messages = new RecordingMessages(nats, opts.publishTimeoutMs);
    this.scanner = new MessageScanner(nats);
    this.deleter = new EventDeleter(this.messages, this.scanner, archives, nats);
  }

  async seal(tenantId: string, recordingId: string): Promise<SealOutcome> {
    const subject = recordingSubject(tenantId, recordingId, 'ev');
    const counts = await this.deleter.settle(tenantId, recordingId, await this.messages.counts(tenantId, recordingId));
    if (counts.ev === 0) {
      if (counts.del > 0) await this.deleter.deleteSealLeftovers(tenantId, recordingId);
      return { status: 'empty' };
    }
    const markerBefore = counts.del > 0 ? ((await this.messages.lastSeq(recordingSubject(tenantId, recordingId, 'del'))) ?? 0) : 0;

    // 1. Every message, and the plan a read makes of them.
    const stored: Stored[] = [];
    for await (const m of this.scanner.scan(subject, { headersOnly: false, startSeq: 0, expected: counts.ev })) stored.push(this.toStored(m));
    if (stored.length < counts.ev) throw new StoreUnavailable(`sealing ${tenantId}/${recordingId}: counted ${counts.ev} messages, read ${stored.length}`);
    const live = stored.filter((m) => !m.sealed || (!m.sealed.x && m.sealed.s > markerBefore));
    const heads: MessageHead[] = live.map((m) => ({ seq: m.seq, batch: m.batch, chunk: m.sealed ? undefined : m.chunk, summary: m.summary }));
    const plan = orderBatches(heads);
    const lastSeq = stored[stored.length - 1].seq;

    // Sealed already, or cut short after its commit: the newest archive's records hold every batch.
    const last = stored[stored.length - 1].sealed;
    if (last && !last.x) {
      const covered = new Set(stored.filter((m) => m.sealed?.a === last.a && !m.sealed.x).map((m) => m.batch));
      if (plan.batches.every((b) => covered.has(b.batch))) {
        const old = stored.filter((m) => m.sealed?.a !== last.a);
        if (old.length === 0 && (await this.states.get(tenantId, recordingId))?.state === 'sealed') return { status: 'unchanged', archive: last.a };
        const archive = await this.archives.load(last.a);
        if (archive) {
          await this.remove(tenantId, recordingId, old, last.a);
          const s = { batches: archive.index.batches.length, rawBytes: archive.index.rawBytes, archiveBytes: archive.size };
          await this.states.put(tenantId, recordingId, { state: 'sealed', archive: last.a, ...s, at: Date.now() });
          return { status: 'sealed', archive: last.a, ...s };
        }
      }
    }

    // 2. The archive: each planned batch once, in plan order.
    const bySeq = new Map(stored.map((m) => [m.seq, m]));
    const batches: ArchivedBatch[] = [];
    for (const b of plan.batches) {
      const parts = b.seqs.map((seq) => bySeq.get(seq)!);
      const payload = parts[0].sealed ? await this.archivedPayload(parts[0]) : Buffer.concat(parts.map((p) => p.data));
      const span = summarySpan(parts.find((p) => p.summary)?.summary);
      batches.push({ id: b.batch, payload, ...span });
    }
    const name = archiveName(tenantId, recordingId, lastSeq);
    // The records (step 3): one per planned batch (its summary's message: projections' rows), at the place
    // the batch completed; one per other message with a summary (rows only: `x`, reads skip it).
    const carriers = new Map<number, { at: number; batch: string }>();
    for (const b of plan.batches) {
      const ofBatch = b.seqs.map((seq) => bySeq.get(seq)!);
      const carrier = ofBatch.find((p) => p.summary) ?? ofBatch[ofBatch.length - 1];
      carriers.set(carrier.seq, { at: Math.max(...b.seqs), batch: b.batch });
    }
    const all = live
      .filter((m) => carriers.has(m.seq) || m.summary !== undefined)
      .map((m) => {
        const carrier = carriers.get(m.seq);
        const ref: SealedRef = m.sealed
          ? { ...m.sealed, a: name, x: carrier ? undefined : true }
          : { a: name, s: m.seq, t: m.timeMs, ...(m.chunk ? { c: m.chunk } : {}), ...(carrier ? {} : { x: true }) };
        return { at: carrier?.at ?? m.seq, m, ref };
      })
      .sort((a, b) => a.at - b.at);
    // A redo after a crash mid-publish finds a message twice (itself and an earlier record of it): one record, the carrier if either is.
    const best = new Map<number, (typeof all)[number]>();
    for (const r of all) {
      const o = best.get(r.ref.s);
      if (!o || (o.ref.x && !r.ref.x)) best.set(r.ref.s, r);
    }
    const records = all.filter((r) => best.get(r.ref.s) === r);
    const response = archiveResponse(batches.map((b, i) => ({ id: b.id, payload: b.payload, releaseBelow: plan.batches[i].releaseBelow })));
    // Whole reads pass the response on from the first and last record and the count (EventReader.wholeArchive),
    // when the records plan as the response was merged: what the headers pass would check.
    const recordHeads = records.filter((r) => !r.ref.x).map((r, i): MessageHead => ({ seq: i + 1, batch: r.m.batch, summary: r.m.summary, sealed: r.ref }));
    const direct = planKey(orderBatches(recordHeads).batches) === response.plan;
    const { bytes, index } = encodeArchive({ tenantId, recordingId, lastSeq, ...(direct ? { records: records.length } : {}) }, batches, response);
    const before = await this.states.get(tenantId, recordingId);
    await this.states.put(tenantId, recordingId, { state: 'sealing', archive: name, at: Date.now() });
    await this.opts.onStep?.('sealing');
    await this.archives.put(name, bytes);
    this.archives.forget(name);
    const back = await this.archives.get(name);
    if (!back) throw new StoreUnavailable(`archive ${name} was not there when read back`);
    await verifyArchive(back, index);
    await this.opts.onStep?.('archived');

    // 3. Publish the records, each expecting the previous one as the subject's last message.
    const published: number[] = [];
    let expect = lastSeq;
    try {
      for (const r of records) {
        const h = natsHeaders();
        h.set(H.batch, r.m.batch);
        // Not Td-Activity: records stay small (the storage target); a rebuild reads the payload from the archive, the same rows.
        if (r.m.summary) h.set(H.summary, r.m.summary);
        h.set(H.sealed, formatSealedRef(r.ref));
        const ack = await this.nats.js.publish(subject, new Uint8Array(0), {
          headers: h,
          expect: { lastSubjectSequence: expect },
          timeout: this.opts.publishTimeoutMs,
        });
        published.push(ack.seq);
        expect = ack.seq;
      }
    } catch (e) {
      if (!isWrongLastSequence(e)) throw e;
      // Another seal of the same messages (another projector) names its archive alike: if its records
      // went in first, the archive is theirs, and deleting it would leave them naming nothing.
      if (published.length === 0 && (await this.namedAfter(tenantId, recordingId, lastSeq, name))) {
        this.logger.log({ msg: 'seal backed off: another seal committed the same archive', tenantId, recordingId, archive: name });
        return { status: 'busy' };
      }
      await this.backOff(tenantId, recordingId, name, published, before);
      return { status: 'busy' };
    }
    await this.opts.onStep?.('published');
    const marker = (await this.messages.lastSeq(recordingSubject(tenantId, recordingId, 'del'))) ?? 0;
    if (marker > markerBefore) {
      // Deleted while sealing: the deletion may have missed what this job wrote after its marker.
      await this.backOff(tenantId, recordingId, name, published, undefined);
      return { status: 'deleted' };
    }

    // 4. What the records replaced.
    if (this.opts.removeDelayMs > 0) await new Promise((r) => setTimeout(r, this.opts.removeDelayMs));
    await this.remove(tenantId, recordingId, stored, name);
    const s = { batches: batches.length, rawBytes: index.rawBytes, archiveBytes: bytes.length };
    await this.states.put(tenantId, recordingId, { state: 'sealed', archive: name, ...s, at: Date.now() });
    this.logger.log({ msg: 'sealed', tenantId, recordingId, archive: name, ...s, replaced: stored.length, records: records.length });
    return { status: 'sealed', archive: name, ...s };
  }

  /** Deletes the replaced messages, then every archive they named (not `keep`). */
  private async remove(tenantId: string, recordingId: string, old: Stored[], keep: string): Promise<void> {
    await this.opts.onStep?.('removing');
    await this.messages.deleteEach(old.map((m) => m.seq));
    const names = new Set(old.flatMap((m) => (m.sealed && m.sealed.a !== keep ? [m.sealed.a] : [])));
    for (const n of names) await this.archives.delete(n);
  }

  /** Whether a sealed batch record stored after `seq` names the archive `name`. */
  private async namedAfter(tenantId: string, recordingId: string, seq: number, name: string): Promise<boolean> {
    const subject = recordingSubject(tenantId, recordingId, 'ev');
    const { ev } = await this.messages.counts(tenantId, recordingId);
    for await (const m of this.scanner.scan(subject, { headersOnly: true, startSeq: seq + 1, expected: ev })) {
      if (parseSealedRef(m.headers?.get(H.sealed) || undefined)?.a === name) return true;
    }
    return false;
  }

  /** Undoes a job that cannot commit: its records, its archive, its state. */
  private async backOff(tenantId: string, recordingId: string, name: string, published: number[], restore: SealState | undefined): Promise<void> {
    await this.messages.deleteEach(published);
    await this.archives.delete(name);
    const s = await this.states.get(tenantId, recordingId);
    if (s?.state === 'sealing' && s.archive === name) {
      if (restore) await this.states.put(tenantId, recordingId, restore);
      else await this.states.delete(tenantId, recordingId);
    }
    this.logger.log({ msg: 'seal backed off', tenantId, recordingId, archive: name, records: published.length });
  }

  private async archivedPayload(m: Stored): Promise<Uint8Array> {
    const p = (await this.archives.load(m.sealed!.a))?.payload(m.batch);
    if (!p) throw new StoreUnavailable(`archive ${m.sealed!.a} does not hold batch ${m.batch}`);
    return p;
  }

  private toStored(m: JsMsg): Stored {
    return {
      seq: m.seq,
      timeMs: Math.floor(m.info.timestampNanos / 1e6),
      batch: m.headers?.get(H.batch) ?? `seq-${m.seq}`,
      chunk: m.headers?.get(H.chunk) || undefined,
      summary: m.headers?.get(H.summary) || undefined,
      sealed: parseSealedRef(m.headers?.get(H.sealed) || undefined),
      data: m.data,
    };
  }
}

function summarySpan(summary: string | undefined): { minTs?: number; maxTs?: number } {
  try {
    const s = JSON.parse(summary ?? 'null') as { minTs?: unknown; maxTs?: unknown } | null;
    return typeof s?.minTs === 'number' && typeof s.maxTs === 'number' ? { minTs: s.minTs, maxTs: s.maxTs } : {};
  } catch {
    return {};
  }
}
