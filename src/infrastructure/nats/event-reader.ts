// Reads a recording back from JetStream in timestamp order, starting from the count the stream holds
// (an interrupted deletion is finished first). A read that did not get the messages it planned fails
// before anything is sent: not_found when a deletion took them meanwhile, else StoreUnavailable.
import { Logger } from '@nestjs/common';
import type { StoredMsg } from 'nats';
import { gunzipSync } from 'node:zlib';
import { AppError, notFound, StoreUnavailable } from '../../common/app-error';
import { MessageCounts, RawEvent, ReadOptions, recordingExists, recordingNotFound, ResponseSource, WindowHint } from '../../domain/event-store';
import type { Keyframe } from '../../domain/keyframes';
import type { RrwebEvent } from '../../domain/rrweb-event';
import { parseKeyframeHeader } from '../../domain/server-keyframes';
import type { EventDeleter } from './event-deleter';
import { BatchAssembler, Mergeable, MessageHead, orderBatches, planKey, ReadPlanMismatch, TimestampMerger } from './event-order';
import { planWindow, WindowCut } from './event-window';
import type { MessageScanner } from './message-scan';
import { rawEvents } from './raw-events';
import type { RecordingMessages } from './recording-messages';
import type { ArchiveStore } from './archive-store';
import { parseSealedRef } from './sealed-record';
import { H, recordingSubject } from './subjects';

/**
 * Bytes of payload one pull of a payload pass asks for. Larger pulls measured no faster (64 and 645
 * messages of 13 KB: the same pass time), and what was pulled waits in memory for a slow client, so
 * a pull is kept small; in bytes, so 1 MB chunks are not pulled 64 at a time either.
 */
const PULL_BYTES = 1024 * 1024;

/**
 * Messages per pull for a payload pass: as many as fit PULL_BYTES at the largest message size
 * (64 when sizes are unknown: batches stored without a summary), between 16 and 256.
 */
export function pullSize(maxMessageBytes: number | undefined): number {
  if (!maxMessageBytes) return 64;
  return Math.min(256, Math.max(16, Math.floor(PULL_BYTES / maxMessageBytes)));
}

/** A read's first steps, done once: the counts (see messageCounts) and the headers pass (see heads). */
interface ReadStart {
  counts: MessageCounts;
  heads: MessageHead[];
}

/**
 * Whole reads of at least this many `ev` messages look for a sealed recording's stored response
 * before the headers pass (wholeArchive): one lookup more for a recording not sealed, against a
 * headers pass that grows with the messages (about 25-55 ms for 1 500 on the 2-core reference machine).
 */
const WHOLE_ARCHIVE_MIN_MESSAGES = 32;

/** The archive a stored message is a sealed batch record of. */
const sealedIn = (m: StoredMsg | undefined): string | undefined => parseSealedRef(m?.header?.get(H.sealed) || undefined)?.a;

export class EventReader {
  private readonly logger = new Logger('event-store');

  constructor(
    private readonly messages: RecordingMessages,
    private readonly scanner: MessageScanner,
    private readonly deleter: EventDeleter,
    private readonly archives: ArchiveStore,
  ) {}

  /**
   * Number of stored messages per kind for a recording (0 when unknown). Every read starts here, so
   * this is also where a deletion interrupted part way is finished before anything could read what it
   * deleted (EventDeleter.settle).
   */
  async messageCounts(tenantId: string, recordingId: string): Promise<MessageCounts> {
    return this.deleter.settle(tenantId, recordingId, await this.messages.counts(tenantId, recordingId));
  }

  async exists(tenantId: string, recordingId: string): Promise<boolean> {
    return recordingExists(await this.messageCounts(tenantId, recordingId));
  }

  /**
   * Stream sequence of the recording's last event batch, undefined when it has none: a version of its
   * events (sequences are never reused, so an append, a deletion or a re-ingestion after one all
   * change it), found with one direct lookup.
   */
  lastEventSeq(tenantId: string, recordingId: string): Promise<number | undefined> {
    return this.messages.lastSeq(recordingSubject(tenantId, recordingId, 'ev'));
  }

  /** Stream sequence of the recording's latest deletion marker, undefined when it was never deleted (or the marker aged out). */
  lastDeletionSeq(tenantId: string, recordingId: string): Promise<number | undefined> {
    return this.messages.lastSeq(recordingSubject(tenantId, recordingId, 'del'));
  }

  /**
   * Streams a recording's events in timestamp order (stable: ties keep arrival order), with repeated
   * batches and repeated sequenceIds dropped. Two passes over JetStream: the first reads only headers
   * (batch ids, chunking, min/max timestamps) and fixes where each batch completes; the second merges
   * batches with a heap that releases an event once no later batch can hold an earlier one, so memory
   * stays proportional to the overlap between batches, not to the recording.
   */
  async *read(tenantId: string, recordingId: string, opts: ReadOptions = {}): AsyncGenerator<RrwebEvent> {
    const decode = (payload: Uint8Array) => JSON.parse(new TextDecoder().decode(payload)) as RrwebEvent[];
    for await (const events of this.merged(tenantId, recordingId, decode, new TimestampMerger<RrwebEvent>(), opts)) yield* events;
  }

  /**
   * `read` without decoding events: the same events in the same order, as their stored JSON bytes,
   * in runs (one per merged batch). For responses that pass events through (GET …/events).
   */
  readRaw(tenantId: string, recordingId: string, opts: ReadOptions = {}): AsyncGenerator<RawEvent[]> {
    return this.rawRuns(tenantId, recordingId, opts);
  }

  /**
   * What GET …/events answers, decided by the read's own headers pass: a whole read (no window, no
   * live-feed bounds) whose messages are all records of one archive, planned as the archive's stored
   * response was merged, is that response; any other read (not sealed, late batches, a seal or
   * deletion under way, a version 1 archive) merges: `readRaw`, continuing from the same pass.
   */
  async readForResponse(tenantId: string, recordingId: string, opts: ReadOptions = {}): Promise<ResponseSource> {
    const whole = !opts.window && !opts.seqs;
    const counts = await this.counted(tenantId, recordingId, opts);
    const direct = whole ? await this.wholeArchive(tenantId, recordingId, counts) : undefined;
    if (direct) return { stored: direct };
    const start = await this.start(tenantId, recordingId, opts, counts);
    const stored = whole ? await this.storedResponse(start.heads) : undefined;
    return stored ? { stored } : { runs: this.rawRuns(tenantId, recordingId, opts, start) };
  }

  private rawRuns(tenantId: string, recordingId: string, opts: ReadOptions, start?: ReadStart): AsyncGenerator<RawEvent[]> {
    return this.merged(tenantId, recordingId, rawEvents, new TimestampMerger<RawEvent>(() => false), opts, undefined, start);
  }

  /** The read's counts and headers pass; no heads when the recording has no `ev` message. */
  private async start(tenantId: string, recordingId: string, opts: ReadOptions, known?: MessageCounts): Promise<ReadStart> {
    const counts = known ?? (await this.counted(tenantId, recordingId, opts));
    return { counts, heads: counts.ev === 0 ? [] : await this.heads(tenantId, recordingId, counts, opts) };
  }

  /** The read's counts (404 for a read that must find the recording and does not). */
  private async counted(tenantId: string, recordingId: string, opts: ReadOptions): Promise<MessageCounts> {
    const counts = await this.messageCounts(tenantId, recordingId);
    if (opts.mustExist && !recordingExists(counts)) throw recordingNotFound();
    return counts;
  }

  /**
   * A sealed recording's stored response without a headers pass: when its first and last `ev`
   * messages are records of one archive and it has as many as that archive's seal published, they
   * are all its messages. A seal publishes its records as one chain, each expecting the previous one
   * as the subject's last message, so nothing lies between its first and its last record; the count
   * leaves no room for anything else (an old message still to be removed, a late batch, a record of
   * another seal). Never deleted only: a deletion marker needs the headers pass's rule.
   */
  private async wholeArchive(tenantId: string, recordingId: string, counts: MessageCounts): Promise<AsyncIterable<Buffer> | undefined> {
    if (counts.ev < WHOLE_ARCHIVE_MIN_MESSAGES || counts.del > 0) return undefined;
    const subject = recordingSubject(tenantId, recordingId, 'ev');
    const name = sealedIn(await this.messages.last(subject));
    if (!name || sealedIn(await this.messages.first(subject)) !== name) return undefined;
    return (await this.archives.load(name))?.responseOfRecords(counts.ev);
  }

  /** The stored response of the archive whose records are all of `heads`, when its plan is theirs; else undefined. */
  private async storedResponse(heads: MessageHead[]): Promise<AsyncIterable<Buffer> | undefined> {
    const archive = heads[0]?.sealed?.a;
    if (!archive || heads.some((h) => h.sealed?.a !== archive)) return undefined;
    return (await this.archives.load(archive))?.response(planKey(orderBatches(heads).batches));
  }

  /** The merge; `start` is the read's counts and headers pass when the caller made them already. */
  private async *merged<E extends Mergeable & { type?: unknown }>(
    tenantId: string,
    recordingId: string,
    decode: (payload: Uint8Array) => E[],
    merger: TimestampMerger<E>,
    opts: ReadOptions,
    skipServer?: ReadonlySet<number>,
    start?: ReadStart,
  ): AsyncGenerator<E[]> {
    const { signal } = opts;
    const subject = recordingSubject(tenantId, recordingId, 'ev');
    const { counts, heads } = start ?? (await this.start(tenantId, recordingId, opts));
    if (heads.length === 0) return;
    const hint = opts.window?.hint;
    // A window reads only the messages it needs, from the first to the last of them (the scan
    // delivers those between too), and stops once its cut is done.
    const server = opts.window ? await this.windowKeyframes(tenantId, recordingId, hint, counts.kf ?? 0, signal) : [];
    const usable = server.filter((k) => !skipServer?.has(k.seq));
    const window = opts.window && planWindow(heads, opts.window, usable);
    if (window?.rescan) return yield* this.merged(tenantId, recordingId, decode, merger, { ...opts, window: { ...opts.window!, hint: undefined } }, skipServer);
    // A server-made keyframe starts the window: its Meta and FullSnapshot first (gone meanwhile: plan without it).
    const keyframe = window?.server && (await this.keyframeEvents(tenantId, recordingId, window.server.seq));
    if (window?.server && !keyframe)
      return yield* this.merged(tenantId, recordingId, decode, merger, opts, new Set([...(skipServer ?? []), window.server.seq]));
    const planned = window?.heads ?? heads;
    const plan = orderBatches(planned);
    const cut = window && new WindowCut<E>(window);
    if (cut && keyframe) {
      const lead = cut.take(decode(keyframe), true);
      if (lead.length) yield lead;
      if (cut.done) return;
    }
    if (plan.batches.length === 0) return;

    const assembler = new BatchAssembler(plan);
    const firstSeq = planned[0].seq;
    const lastSeq = planned[planned.length - 1].seq;
    const expected = window ? heads.filter((h) => h.seq >= firstSeq && h.seq <= lastSeq).length : heads.length;
    try {
      for await (const m of this.scanner.scan(subject, {
        headersOnly: false,
        startSeq: firstSeq,
        expected,
        signal,
        maxMessages: window ? Math.min(pullSize(plan.maxMessageBytes), expected) : pullSize(plan.maxMessageBytes),
      })) {
        const sealed = parseSealedRef(m.headers?.get(H.sealed) || undefined);
        const batch = m.headers?.get(H.batch) ?? `seq-${m.seq}`;
        const data = sealed && !sealed.x ? await this.archivedPayload(sealed.a, batch, subject) : m.data;
        const done = assembler.add(m.seq, batch, data);
        if (done) {
          const merged = merger.take(decode(done.payload), done.releaseBelow);
          const out = cut ? cut.take(merged) : merged;
          if (out.length) yield out;
          if (cut?.done) return;
        }
        if (m.seq >= lastSeq) break;
      }
      if (!signal?.aborted && assembler.outstanding > 0)
        throw new ReadPlanMismatch(`${assembler.outstanding} planned messages of ${subject} were not delivered`);
    } catch (e) {
      if (e instanceof ReadPlanMismatch) throw await this.incompleteRead(tenantId, recordingId, heads[0].seq, counts.ev, e.message);
      throw e;
    }
    const drained = [...merger.drainAll()];
    const rest = cut ? cut.take(drained) : drained;
    if (rest.length) yield rest;
  }

  /**
   * The headers pass: the recording's `ev` messages a read uses, from a window's hint (ReadWindow.hint)
   * or the live feed's `after` on; a read from the first message must see as many as counted.
   */
  private async heads(tenantId: string, recordingId: string, counts: MessageCounts, opts: ReadOptions): Promise<MessageHead[]> {
    const subject = recordingSubject(tenantId, recordingId, 'ev');
    const hint = opts.window?.hint;
    const after = opts.seqs?.after ?? 0;
    const upTo = opts.seqs?.upTo ?? Number.MAX_SAFE_INTEGER;
    // A start other than the first message cannot be checked against the count.
    const partial = hint !== undefined || after > 0;
    let heads: MessageHead[] = [];
    const from = { startSeq: Math.max(hint?.seq ?? 0, after + 1), expected: partial ? Number.MAX_SAFE_INTEGER : counts.ev };
    for await (const m of this.scanner.scan(subject, { headersOnly: true, ...from, signal: opts.signal })) {
      const sealed = parseSealedRef(m.headers?.get(H.sealed) || undefined);
      heads.push({
        seq: m.seq,
        batch: m.headers?.get(H.batch) ?? `seq-${m.seq}`,
        chunk: sealed ? undefined : m.headers?.get(H.chunk) || undefined,
        summary: m.headers?.get(H.summary) || undefined,
        ...(sealed ? { sealed } : {}),
      });
    }
    if (!partial && heads.length < counts.ev) {
      // The stream leader counted more messages than its consumer delivered: the read would be
      // incomplete. Refuse it (nothing was sent yet) rather than answer with a gap.
      throw await this.incompleteRead(
        tenantId,
        recordingId,
        heads[0]?.seq ?? 0,
        counts.ev,
        `counted ${counts.ev} messages of ${subject}, read ${heads.length}`,
      );
    }
    if (heads.some((h) => h.sealed)) heads = await this.readableSealed(tenantId, recordingId, heads, counts.del, after);
    if (upTo < Number.MAX_SAFE_INTEGER) heads = heads.filter((h) => (h.sealed?.s ?? h.seq) <= upTo);
    return heads;
  }

  /**
   * Sealed batch records a read may use: not those standing for a batch never stored whole (`x`), nor
   * those of messages below the latest deletion marker (a seal that raced a deletion republished them
   * after the marker; the seal or the deleter removes them), nor, for the live feed's `after`, those
   * of messages the viewer already has.
   */
  private async readableSealed(tenantId: string, recordingId: string, heads: MessageHead[], dels: number, after: number): Promise<MessageHead[]> {
    const marker = dels > 0 ? ((await this.lastDeletionSeq(tenantId, recordingId)) ?? 0) : 0;
    return heads.filter((h) => !h.sealed || (!h.sealed.x && h.sealed.s > marker && h.sealed.s > after));
  }

  /** A sealed batch's payload from its archive; a missing archive or batch fails the read (ReadPlanMismatch: see incompleteRead). */
  private async archivedPayload(name: string, batch: string, subject: string): Promise<Uint8Array> {
    const payload = (await this.archives.load(name))?.payload(batch);
    if (!payload) throw new ReadPlanMismatch(`archive ${name} of ${subject} does not hold batch ${batch}`);
    return payload;
  }

  /**
   * The server-made keyframes a window may start at: with the index's hint, the one it names (none
   * when its keyframe is the recording's own: a later one not projected yet only costs a longer
   * read); without, every one the stream holds.
   */
  private async windowKeyframes(tenantId: string, recordingId: string, hint: WindowHint | undefined, count: number, signal?: AbortSignal): Promise<Keyframe[]> {
    if (hint) return hint.server !== undefined ? [{ ts: hint.ts, seq: hint.server }] : [];
    return count > 0 ? this.serverKeyframes(tenantId, recordingId, count, signal) : [];
  }

  /** The payload (events JSON) of the server-made keyframe at `seq`; undefined when it is gone or unreadable. */
  private async keyframeEvents(tenantId: string, recordingId: string, seq: number): Promise<Uint8Array | undefined> {
    const m = await this.messages.get(seq);
    const h = m?.subject === recordingSubject(tenantId, recordingId, 'kf') ? parseKeyframeHeader(m.header?.get(H.keyframe)) : undefined;
    if (!m || !h?.ok) return undefined;
    try {
      return h.enc === 'gzip' ? gunzipSync(m.data) : m.data;
    } catch {
      return undefined;
    }
  }

  /** The recording's server-made keyframes (those made, not failed attempts), by time, from the headers of its `kf` messages. */
  private async serverKeyframes(tenantId: string, recordingId: string, count: number, signal?: AbortSignal): Promise<Keyframe[]> {
    const out: Keyframe[] = [];
    const subject = recordingSubject(tenantId, recordingId, 'kf');
    for await (const m of this.scanner.scan(subject, { headersOnly: true, startSeq: 0, expected: count, signal })) {
      const h = parseKeyframeHeader(m.headers?.get(H.keyframe));
      if (h?.ok) out.push({ ts: h.ts, seq: m.seq });
    }
    return out.sort((a, b) => a.ts - b.ts || a.seq - b.seq);
  }

  /**
   * The error for a read that did not get the messages it planned: not_found when the recording was
   * deleted meanwhile (a marker above the first message read, and fewer event messages than counted:
   * what a read started a moment later answers), else unavailable (JetStream failed the read; a retry
   * reads it whole).
   */
  private async incompleteRead(tenantId: string, recordingId: string, firstSeq: number, countedEv: number, why: string): Promise<AppError> {
    const [marker, now] = await Promise.all([
      this.lastDeletionSeq(tenantId, recordingId).catch(() => undefined),
      this.messages.counts(tenantId, recordingId).catch(() => undefined),
    ]);
    if (marker !== undefined && marker > firstSeq && now !== undefined && now.ev < countedEv)
      return notFound('Recording not found (it was deleted while being read)');
    this.logger.warn({ msg: 'read did not get the messages it planned', tenantId, recordingId, why });
    return new StoreUnavailable('Event store (NATS JetStream) returned an incomplete read; retry later');
  }
}
