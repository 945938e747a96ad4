// Deleting a recording: a deletion marker (seq D), then every message of the recording below D, one
// by one; done once nothing below D is left. A failure part way is a StoreUnavailable, and a retry
// (a new marker) or the next count of the recording (`settle`, where every read starts) finishes it.
import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { headers as natsHeaders } from 'nats';
import { AppError, StoreUnavailable } from '../../common/app-error';
import type { MessageCounts } from '../../domain/event-store';
import { type ArchiveStore, parseArchiveName } from './archive-store';
import type { MessageScanner } from './message-scan';
import type { NatsClient } from './nats-connection';
import type { RecordingMessages } from './recording-messages';
import { SealStates } from './seal-states';
import { parseSealedRef } from './sealed-record';
import { H, recordingSubject, recordingWildcard } from './subjects';

/** Rounds of deleting a racing seal's records before leaving the rest to the next settle. */
const STALE_ROUNDS = 10;

export class EventDeleter {
  private readonly logger = new Logger('event-store');

  private readonly states?: SealStates;

  constructor(
    private readonly messages: RecordingMessages,
    private readonly scanner: MessageScanner,
    private readonly archives?: ArchiveStore,
    nats?: NatsClient,
  ) {
    this.states = nats && new SealStates(nats);
  }

  /**
   * Appends a deletion marker (seq D), then deletes every message of the recording below D. The
   * projectors remove the recording's rows below D when they apply the marker, so the stream and the
   * projections agree on the same cut: events written for the same id after D are a new recording in
   * both. Returns the messages deleted and the marker's stream sequence.
   *
   * Not a filtered stream purge: on nats-server before 2.10.11 a purge filtered on one recording
   * moves every consumer with a wider filter past the stream's last message (nats-io/nats-server
   * #3838, #5075), so the projector skipped other recordings' acknowledged batches written while it
   * was between two pulls, and concurrent reads of other recordings came up short. Deleting single
   * messages moves no consumer.
   */
  async deleteRecording(tenantId: string, recordingId: string): Promise<{ deleted: number; markerSeq: number }> {
    this.messages.assertConnected();
    const h = natsHeaders();
    const id = `del.${randomUUID()}`;
    h.set(H.batch, id);
    const marker = await this.messages.publish(
      recordingSubject(tenantId, recordingId, 'del'),
      new TextEncoder().encode(JSON.stringify({ deletedAt: Date.now() })),
      id,
      h,
    );
    return { deleted: await this.deleteMessagesBelow(tenantId, recordingId, marker.seq), markerSeq: marker.seq };
  }

  /**
   * The counts a read may start from: when the recording has a deletion marker with messages still
   * below it (the process died between storing the marker and deleting the last message, or another
   * deletion is under way), or a racing seal's records above it (staleRecordIsLast), those are
   * deleted first and the recording counted again. Costs two or three direct gets more only for a
   * recording that has a deletion marker.
   */
  async settle(tenantId: string, recordingId: string, counts: MessageCounts): Promise<MessageCounts> {
    if (counts.del === 0) return counts;
    const marker = await this.messages.lastSeq(recordingSubject(tenantId, recordingId, 'del'));
    if (marker === undefined) return counts;
    const left =
      (await this.messages.holdsBelow(tenantId, recordingId, marker)) || (counts.ev > 0 && (await this.staleRecordIsLast(tenantId, recordingId, marker)));
    if (!left) return counts;
    // Also seen while another deletion of the recording is still under way (a DELETE elsewhere, a
    // retention sweep): both delete the same messages, which is harmless; only a crash leaves one.
    this.logger.log({
      msg: 'deleting messages below a deletion marker (a deletion under way elsewhere, or one cut short)',
      tenantId,
      recordingId,
      markerSeq: marker,
    });
    await this.deleteMessagesBelow(tenantId, recordingId, marker, counts);
    return this.messages.counts(tenantId, recordingId);
  }

  /**
   * Deletes the recording's messages (every kind) with a stream sequence below `belowSeq`; a message
   * already gone counts as deleted by someone else. Any other failure is a 503: a retry finishes it.
   */
  private async deleteMessagesBelow(tenantId: string, recordingId: string, belowSeq: number, counts?: MessageCounts): Promise<number> {
    try {
      return await this.deleteEachBelow(tenantId, recordingId, belowSeq, counts);
    } catch (e) {
      if (e instanceof AppError) throw e;
      this.logger.warn({ msg: "deleting a recording's messages failed", err: String((e as Error).message) });
      throw new StoreUnavailable('Event store (NATS JetStream) could not delete the recording; retry');
    }
  }

  private async deleteEachBelow(tenantId: string, recordingId: string, belowSeq: number, counts?: MessageCounts): Promise<number> {
    const c = counts ?? (await this.messages.counts(tenantId, recordingId));
    const seqs: number[] = [];
    const archives = new Set<string>();
    for await (const m of this.scanner.scan(recordingWildcard(tenantId, recordingId), {
      headersOnly: true,
      startSeq: 0,
      expected: c.ev + c.meta + c.del + (c.kf ?? 0),
    })) {
      if (m.seq >= belowSeq) break;
      seqs.push(m.seq);
      const sealed = parseSealedRef(m.headers?.get(H.sealed) || undefined);
      if (sealed) archives.add(sealed.a);
    }
    const deleted = await this.messages.deleteEach(seqs);
    const stale = await this.deleteStaleRecords(tenantId, recordingId, belowSeq, archives);
    await this.deleteArchives(tenantId, recordingId, belowSeq, archives);
    return deleted + stale;
  }

  /**
   * Whether the recording's last `ev` message is a sealed batch record of a message below the marker:
   * a seal that read the recording before the deletion published it after the marker (its records
   * expect the subject's last sequence, which the marker, on another subject, does not change) and
   * died before its own check undid it (recording-sealer.ts). Reads and projections ignore such
   * records; they are deleted all the same, with their archive.
   */
  private async staleRecordIsLast(tenantId: string, recordingId: string, marker: number): Promise<boolean> {
    const last = await this.messages.last(recordingSubject(tenantId, recordingId, 'ev'));
    const ref = parseSealedRef(last?.header?.get(H.sealed) || undefined);
    return ref !== undefined && ref.s < marker;
  }

  /**
   * Deletes the sealed batch records above the marker that replaced messages below it (adding their
   * archives to `archives`), while one is the recording's last `ev` message. A seal's records form a
   * chain, each published only while the one before is the subject's last message; with every
   * message below the marker gone and no such record last, none can follow. A seal still publishing
   * meanwhile makes another round; a batch stored after the marker ends the chain (the records
   * below it are then removed by that recording's next seal or deletion).
   */
  private async deleteStaleRecords(tenantId: string, recordingId: string, marker: number, archives: Set<string>): Promise<number> {
    const subject = recordingSubject(tenantId, recordingId, 'ev');
    let deleted = 0;
    for (let round = 0; round < STALE_ROUNDS && (await this.staleRecordIsLast(tenantId, recordingId, marker)); round++) {
      const { ev } = await this.messages.counts(tenantId, recordingId);
      const seqs: number[] = [];
      for await (const m of this.scanner.scan(subject, { headersOnly: true, startSeq: marker + 1, expected: ev })) {
        const ref = parseSealedRef(m.headers?.get(H.sealed) || undefined);
        if (!ref || ref.s >= marker) continue;
        seqs.push(m.seq);
        archives.add(ref.a);
      }
      this.logger.log({ msg: "deleting a racing seal's records above a deletion marker", tenantId, recordingId, markerSeq: marker, records: seqs.length });
      deleted += await this.messages.deleteEach(seqs);
    }
    return deleted;
  }

  /**
   * For a recording with no `ev` message left: an archive its seal state names below the latest
   * deletion marker goes, with the state (a seal cut short between its archive and its records while
   * a deletion finished: the deletion found no state yet, and no record names the archive).
   */
  async deleteSealLeftovers(tenantId: string, recordingId: string): Promise<void> {
    const marker = await this.messages.lastSeq(recordingSubject(tenantId, recordingId, 'del'));
    if (marker !== undefined) await this.deleteArchives(tenantId, recordingId, marker, new Set());
  }

  /**
   * Every archive of the bucket made from messages below its recording's latest deletion marker, with
   * the seal state naming it. A deletion removes the archives that records or a seal state name; one
   * put by a seal that died before its seal state and its records were found by the deletion is named
   * nowhere, and only its name (tenant, recording, last sequence: archiveName) tells it belongs to a
   * deleted recording. Such an archive can never be used: its seal's records would each expect a
   * message the deletion removed. One of a later recording of the same id is above the marker: kept.
   */
  async sweepDeletedArchives(): Promise<number> {
    if (!this.archives) return 0;
    const byRecording = new Map<string, { tenantId: string; recordingId: string; archives: { name: string; lastSeq: number }[] }>();
    for (const { name } of await this.archives.list()) {
      const parsed = parseArchiveName(name);
      if (!parsed) continue;
      const key = `${parsed.tenantId}.${parsed.recordingId}`;
      const entry = byRecording.get(key) ?? { tenantId: parsed.tenantId, recordingId: parsed.recordingId, archives: [] };
      entry.archives.push({ name, lastSeq: parsed.lastSeq });
      byRecording.set(key, entry);
    }
    let removed = 0;
    for (const { tenantId, recordingId, archives } of byRecording.values()) {
      const marker = await this.messages.lastSeq(recordingSubject(tenantId, recordingId, 'del'));
      if (marker === undefined) continue;
      const below = archives.filter((a) => a.lastSeq < marker).map((a) => a.name);
      if (below.length === 0) continue;
      await this.deleteArchives(tenantId, recordingId, marker, new Set(below));
      removed += below.length;
      this.logger.log({ msg: 'removed archives of a deleted recording', tenantId, recordingId, archives: below.length });
    }
    return removed;
  }

  /**
   * The recording's archives made from messages below the marker: those its records named, and the
   * one its seal state names (a seal under way: its records may not be published yet). An archive is
   * named after the last sequence it holds, so one of a later recording of the same id is kept.
   */
  private async deleteArchives(tenantId: string, recordingId: string, belowSeq: number, named: Set<string>): Promise<void> {
    if (!this.archives || !this.states) return;
    const state = await this.states.get(tenantId, recordingId);
    if (state?.archive) named.add(state.archive);
    const below = (name: string) => Number(name.slice(name.lastIndexOf('.') + 1)) < belowSeq;
    for (const name of named) if (below(name)) await this.archives.delete(name);
    if (state && (!state.archive || below(state.archive))) await this.states.delete(tenantId, recordingId);
  }
}
