// The event store on JetStream. A batch is acknowledged to the caller only after JetStream acked
// every message of it (PubAck); a publish that fails or times out throws and nothing is reported as
// stored. Each message carries Nats-Msg-Id derived from the batch id, so a retried batch is a
// duplicate (PubAck.duplicate) within the stream's de-duplication window, and reads drop repeated
// batches beyond it. Batches larger than the server's max_payload are cut into chunks.
import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { ConsumerMessages, headers as natsHeaders, JsMsg, MsgHdrs } from 'nats';
import { AppError, notFound, StoreFull, StoreUnavailable } from '../../common/app-error';
import type { BatchSummary } from '../../domain/batch-summary';
import { headerJson } from '../../domain/batch-summary';
import type { RrwebEvent } from '../../domain/rrweb-event';
import type { NatsClient } from './nats-connection';
import { directGet } from './direct-get';
import { EVENTS_STREAM, H, recordingSubject, recordingWildcard } from './subjects';
import { BatchAssembler, Mergeable, orderBatches, ReadPlanMismatch, TimestampMerger } from './event-order';
import { isAlreadyDeleted, isLimitRefusal, isNoMessage, isReadConsumerLost, refusalOf } from './jetstream-errors';
import { leaderConsumer } from './leader-consumer';
import { RawEvent, rawEvents } from './raw-events';

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

/** Timings of read consumers (shorter in tests of a reader that pauses). */
export interface ReadTuning {
  /** Expiry of each pull request. */
  pullExpiresMs: number;
  /** The server deletes a read consumer on which no pull waited this long. */
  readInactiveMs: number;
  /** Idle heartbeat of read pulls (default: 1 s, or half the expiry if shorter). */
  idleHeartbeatMs?: number;
}

const DEFAULT_READ_TUNING: ReadTuning = { pullExpiresMs: 30_000, readInactiveMs: 60_000 };

/**
 * nats.js (v2) treats two missed idle heartbeats as a lost pull and pulls a whole batch again, every
 * heartbeat interval after that. A reader that has not yet taken what was delivered (a slow HTTP
 * client) gets no heartbeats because no pull is waiting, so each second it was behind added a batch:
 * a client at ~40 KB/s had nats.js holding 12 MB ahead after 30 s, growing. Missed heartbeats count
 * only while the reader waits for messages (then a silence is a real stall). Relies on the v2
 * client's `monitor` field; without it (another client version) nothing changes.
 */
function heartbeatsOnlyWhenCaughtUp(messages: ConsumerMessages, caughtUp: () => boolean): void {
  const monitor = (messages as unknown as { monitor?: { callback?: (missed: number) => boolean; work?: () => void } }).monitor;
  const missed = monitor?.callback;
  if (!monitor || typeof missed !== 'function' || typeof monitor.work !== 'function') return;
  monitor.callback = (n: number) => {
    if (!caughtUp()) {
      monitor.work!();
      return false;
    }
    return missed.call(monitor, n);
  };
}

/** How long a read waits on an idle consumer before it asks whether anything is left to deliver. */
export const READ_IDLE_CHECK_MS = 1000;

export interface ReadOptions {
  /**
   * A recording with no event and no metadata is a 404 (AppError not_found), found by the count the
   * read starts from: a separate existence check before the read could see a recording that a
   * deletion removed before the read began, which then answered 200 [].
   */
  mustExist?: boolean;
}

/** Whether a read consumer has delivered everything its filter holds (cached: as created). */
async function nothingLeft(consumer: { info(cached?: boolean): Promise<{ num_pending: number }> }, cached: boolean): Promise<boolean> {
  try {
    return (await consumer.info(cached)).num_pending === 0;
  } catch {
    return false; // not knowing is not "nothing left": the read goes on as before
  }
}

/**
 * Calls `stop` once the reader has been waiting (`waiting()`) READ_IDLE_CHECK_MS without progress
 * and `idle()` confirms nothing is left. One timer per read, nothing per message.
 */
export function idleWatch(waiting: () => boolean, idle: () => Promise<boolean>, stop: () => void, checkMs = READ_IDLE_CHECK_MS) {
  let last = Date.now();
  let checking = false;
  const w = {
    fired: false,
    progress: () => void (last = Date.now()),
    stop: () => clearInterval(timer),
  };
  const timer = setInterval(() => {
    if (checking || w.fired || !waiting() || Date.now() - last < checkMs) return;
    checking = true;
    void idle()
      .then((empty) => {
        if (empty && waiting() && Date.now() - last >= checkMs) {
          w.fired = true;
          stop();
        }
      })
      .finally(() => (checking = false));
  }, Math.max(10, checkMs >> 1));
  timer.unref?.();
  return w;
}

export interface AppendResult {
  duplicate: boolean;
  seq: number;
  /** Stream sequence of each message (chunk) of the write: for a duplicate, where the earlier write is. */
  seqs: number[];
}

/** Room left below max_payload for the headers other than the summary, and protocol overhead. */
const CHUNK_HEADROOM = 8 * 1024;

/**
 * Largest Td-Summary header. It grows with a batch's in-band metadata and with the distinct minutes
 * its events span (~25 bytes each), and rides on the batch's last message, whose data is cut shorter
 * to make room; above this (or half of what a message can carry) the batch is refused with 413.
 */
export const MAX_SUMMARY_HEADER_BYTES = 256 * 1024;

/**
 * Where each message of a batch starts and ends: full messages, then a last one short enough to
 * carry the summary header beside its data (never empty unless the whole payload is).
 */
export function chunkBounds(payloadBytes: number, maxPayload: number, summaryHeaderBytes: number): [number, number][] {
  const size = Math.max(64 * 1024, maxPayload - CHUNK_HEADROOM);
  const last = size - summaryHeaderBytes;
  const bounds: [number, number][] = [];
  let start = 0;
  while (payloadBytes - start > last) {
    const end = start + Math.min(size, payloadBytes - start - 1);
    bounds.push([start, end]);
    start = end;
  }
  bounds.push([start, payloadBytes]);
  return bounds;
}

/** Message deletions in flight while a recording is deleted. */
const DELETES_IN_FLIGHT = 32;

export type MessageCounts = { ev: number; meta: number; del: number };

export class JetStreamEventStore {
  private readonly logger = new Logger('event-store');

  constructor(
    private readonly nats: NatsClient,
    private readonly publishTimeoutMs: number,
    private readonly tuning: ReadTuning = DEFAULT_READ_TUNING,
  ) {}

  private assertConnected() {
    if (!this.nats.connected) {
      throw new StoreUnavailable('Event store (NATS JetStream) is unreachable; retry later');
    }
  }

  private async publish(subject: string, data: Uint8Array, msgID: string, h: MsgHdrs) {
    try {
      return await this.nats.js.publish(subject, data, { msgID, headers: h, timeout: this.publishTimeoutMs });
    } catch (e) {
      const refusal = refusalOf(e);
      this.logger.warn({ msg: 'publish failed', subject, err: String((e as Error).message), ...(refusal ? { refusal } : {}) });
      if (isLimitRefusal(refusal)) {
        // discard: new at STREAM_MAX_BYTES: nothing clears this until an operator makes room.
        throw new StoreFull(`Event store is full (JetStream: ${refusal}): the write was refused; retry later`);
      }
      throw new StoreUnavailable('Event store (NATS JetStream) did not confirm the write; retry later');
    }
  }

  /** Appends one batch (a JSON array of events). Resolves only when JetStream stored all of it. */
  async appendBatch(
    tenantId: string,
    recordingId: string,
    batchId: string,
    payload: Uint8Array,
    summary: BatchSummary,
    /** Suffix making message ids fresh when a batch must be stored again (see below). */
    retrySuffix = '',
  ): Promise<AppendResult> {
    const summaryHeader = headerJson(summary);
    const maxSummary = Math.min(MAX_SUMMARY_HEADER_BYTES, Math.floor((this.nats.maxPayload - CHUNK_HEADROOM) / 2));
    if (summaryHeader.length > maxSummary) {
      throw new AppError(
        'payload_too_large',
        `The batch's summary is ${summaryHeader.length} bytes, above the ${maxSummary} this server stores with a batch: ` +
          'its in-band metadata (recording-meta/pageview-meta payloads) or the number of distinct minutes its events span is too large. ' +
          'Send the events in smaller batches, and large metadata with POST /recordings/{recordingId}/metadata',
      );
    }
    this.assertConnected();
    const subject = recordingSubject(tenantId, recordingId, 'ev');
    const bounds = chunkBounds(payload.length, this.nats.maxPayload, summaryHeader.length);
    const count = bounds.length;
    const chunk = (i: number) => {
      const h = natsHeaders();
      h.set(H.batch, batchId);
      if (count > 1) h.set(H.chunk, `${i}/${count}`);
      if (i === count - 1) h.set(H.summary, summaryHeader);
      const msgId = (count > 1 ? `${batchId}.${i}/${count}` : batchId) + retrySuffix;
      return this.publish(subject, payload.subarray(bounds[i][0], bounds[i][1]), msgId, h);
    };
    // The summary (what the projections count) is stored only once every other chunk is: a batch
    // cut short (a stream full for its later chunks, a crash between them) is neither read, which
    // skips incomplete batches, nor counted in listings and statistics.
    const results = await Promise.all(bounds.slice(0, -1).map((_, i) => chunk(i)));
    results.push(await chunk(count - 1));
    if (results.some((r) => r.duplicate) && !(await this.batchComplete(tenantId, recordingId, batchId, count))) {
      // JetStream answered "duplicate" for data it does not hold (seen around stream leader changes:
      // the id was in the de-duplication map, the message was not committed). Store it again under
      // fresh message ids; reads collapse repeated batches by Td-Batch, so this cannot duplicate.
      this.logger.warn({ msg: 'duplicate ack for a batch that is not stored; republishing', subject, batchId });
      return this.appendBatch(tenantId, recordingId, `${batchId}`, payload, summary, `~${Date.now().toString(36)}`);
    }
    return { duplicate: results.every((r) => r.duplicate), seq: results[results.length - 1].seq, seqs: results.map((r) => r.seq) };
  }

  /**
   * The data an earlier write stored at `seqs` (its chunks joined), undefined when a message is gone
   * or belongs to another subject. Read only on the rare path where a keyed write was a duplicate.
   */
  async storedPayload(tenantId: string, recordingId: string, kind: 'ev' | 'meta', seqs: number[]): Promise<Uint8Array | undefined> {
    const subject = recordingSubject(tenantId, recordingId, kind);
    const parts: Uint8Array[] = [];
    for (const seq of seqs) {
      const m = await this.stored(this.nats.jsm.streams.getMessage(EVENTS_STREAM, { seq }));
      if (m?.subject !== subject) return undefined;
      parts.push(m.data);
    }
    return Buffer.concat(parts);
  }

  /** Whether every chunk of a batch is in the stream (checked only on the rare duplicate path). */
  private async batchComplete(tenantId: string, recordingId: string, batchId: string, chunks: number): Promise<boolean> {
    const subject = recordingSubject(tenantId, recordingId, 'ev');
    const total = (await this.messageCounts(tenantId, recordingId)).ev;
    const seen = new Set<string>();
    for await (const m of this.scan(subject, true, 0, total)) {
      if (m.headers?.get(H.batch) === batchId) seen.add(m.headers?.get(H.chunk) || '0/1');
      if (seen.size >= chunks) return true;
    }
    return seen.size >= chunks;
  }

  /** Appends a metadata write (a JSON object of string values). */
  async appendMetadata(tenantId: string, recordingId: string, writeId: string, metadata: Record<string, string>): Promise<AppendResult> {
    this.assertConnected();
    const h = natsHeaders();
    h.set(H.batch, writeId);
    const data = new TextEncoder().encode(JSON.stringify(metadata));
    // One message: a body just under the 1 MiB limit, its numbers and booleans stored as strings and
    // its headers added, can exceed max_payload, which JetStream would refuse on every retry.
    const max = this.nats.maxPayload - CHUNK_HEADROOM;
    if (data.length > max) throw new AppError('payload_too_large', `Metadata write too large to store: ${data.length} bytes as stored (values as strings), at most ${max}`);
    const ack = await this.publish(recordingSubject(tenantId, recordingId, 'meta'), data, writeId, h);
    return { duplicate: ack.duplicate, seq: ack.seq, seqs: [ack.seq] };
  }

  /**
   * Number of stored messages per kind for a recording (0 when unknown). Every read starts here, so
   * this is also where a deletion interrupted part way (the process died between storing its marker
   * and deleting the last message below it) is finished before anything could read what it deleted.
   * Costs two direct gets more only for a recording that has a deletion marker.
   */
  async messageCounts(tenantId: string, recordingId: string): Promise<MessageCounts> {
    const counts = await this.subjectCounts(tenantId, recordingId);
    if (counts.del === 0) return counts;
    const marker = await this.lastDeletionSeq(tenantId, recordingId);
    if (marker === undefined || !(await this.holdsBelow(tenantId, recordingId, marker))) return counts;
    // Also seen while another deletion of the recording is still under way (a DELETE elsewhere, a
    // retention sweep): both delete the same messages, which is harmless; only a crash leaves one.
    this.logger.log({ msg: 'deleting messages below a deletion marker (a deletion under way elsewhere, or one cut short)', tenantId, recordingId, markerSeq: marker });
    await this.deleteMessagesBelow(tenantId, recordingId, marker, counts);
    return this.subjectCounts(tenantId, recordingId);
  }

  /** Whether the recording has any message (of any kind) stored below `seq`. */
  private async holdsBelow(tenantId: string, recordingId: string, seq: number): Promise<boolean> {
    const first = await this.stored(directGet(this.nats, { seq: 1, next_by_subj: recordingWildcard(tenantId, recordingId) }));
    return first !== undefined && first.seq < seq;
  }

  /** One message lookup: undefined when the stream holds no such message, 503 when JetStream does not answer. */
  private async stored<M>(lookup: Promise<M>): Promise<M | undefined> {
    try {
      return await lookup;
    } catch (err) {
      if (isNoMessage(err)) return undefined;
      // Connected, yet no answer (a stalled server, a leader election): retryable, like a lost connection.
      this.logger.warn({ msg: 'stream message get failed', err: String((err as Error).message) });
      throw new StoreUnavailable('Event store (NATS JetStream) did not answer; retry later');
    }
  }

  private async subjectCounts(tenantId: string, recordingId: string): Promise<MessageCounts> {
    this.assertConnected();
    let info;
    try {
      info = await this.nats.jsm.streams.info(EVENTS_STREAM, { subjects_filter: recordingWildcard(tenantId, recordingId) });
    } catch (e) {
      // Connected, yet no answer (a stalled server, a leader election): retryable, like a lost connection.
      this.logger.warn({ msg: 'stream info failed', err: String((e as Error).message) });
      throw new StoreUnavailable('Event store (NATS JetStream) did not answer; retry later');
    }
    const subjects = (info.state.subjects ?? {}) as Record<string, number>;
    return {
      ev: subjects[recordingSubject(tenantId, recordingId, 'ev')] ?? 0,
      meta: subjects[recordingSubject(tenantId, recordingId, 'meta')] ?? 0,
      del: subjects[recordingSubject(tenantId, recordingId, 'del')] ?? 0,
    };
  }

  /**
   * Stream sequence of the recording's last event batch, undefined when it has none: a version of its
   * events (sequences are never reused, so an append, a deletion or a re-ingestion after one all
   * change it), found with one direct lookup.
   */
  lastEventSeq(tenantId: string, recordingId: string): Promise<number | undefined> {
    return this.lastSeq(recordingSubject(tenantId, recordingId, 'ev'));
  }

  /** Stream sequence of the recording's latest deletion marker, undefined when it was never deleted (or the marker aged out). */
  lastDeletionSeq(tenantId: string, recordingId: string): Promise<number | undefined> {
    return this.lastSeq(recordingSubject(tenantId, recordingId, 'del'));
  }

  private async lastSeq(subject: string): Promise<number | undefined> {
    this.assertConnected();
    return (await this.stored(this.nats.jsm.streams.getMessage(EVENTS_STREAM, { last_by_subj: subject })))?.seq;
  }

  /**
   * Streams a recording's events in timestamp order (stable: ties keep arrival order), with repeated
   * batches and repeated sequenceIds dropped. Two passes over JetStream: the first reads only headers
   * (batch ids, chunking, min/max timestamps) and fixes where each batch completes; the second merges
   * batches with a heap that releases an event once no later batch can hold an earlier one, so memory
   * stays proportional to the overlap between batches, not to the recording.
   */
  async *read(tenantId: string, recordingId: string, signal?: AbortSignal, opts: ReadOptions = {}): AsyncGenerator<RrwebEvent> {
    const decode = (payload: Uint8Array) => JSON.parse(new TextDecoder().decode(payload)) as RrwebEvent[];
    for await (const events of this.merged(tenantId, recordingId, decode, new TimestampMerger<RrwebEvent>(), signal, opts)) yield* events;
  }

  /**
   * `read` without decoding events: the same events in the same order, as their stored JSON bytes,
   * in runs (one per merged batch). For responses that pass events through (GET …/events).
   */
  readRaw(tenantId: string, recordingId: string, signal?: AbortSignal, opts: ReadOptions = {}): AsyncGenerator<RawEvent[]> {
    return this.merged(tenantId, recordingId, rawEvents, new TimestampMerger<RawEvent>(() => false), signal, opts);
  }

  private async *merged<E extends Mergeable>(tenantId: string, recordingId: string, decode: (payload: Uint8Array) => E[], merger: TimestampMerger<E>, signal?: AbortSignal, opts: ReadOptions = {}): AsyncGenerator<E[]> {
    const subject = recordingSubject(tenantId, recordingId, 'ev');
    const counts = await this.messageCounts(tenantId, recordingId);
    if (opts.mustExist && counts.ev + counts.meta === 0) throw notFound('Recording not found');
    if (counts.ev === 0) return;

    const heads: { seq: number; batch: string; chunk?: string; summary?: string }[] = [];
    for await (const m of this.scan(subject, true, 0, counts.ev, signal)) {
      heads.push({ seq: m.seq, batch: m.headers?.get(H.batch) ?? `seq-${m.seq}`, chunk: m.headers?.get(H.chunk) || undefined, summary: m.headers?.get(H.summary) || undefined });
    }
    if (heads.length < counts.ev) {
      // The stream leader counted more messages than its consumer delivered: the read would be
      // incomplete. Refuse it (nothing was sent yet) rather than answer with a gap.
      throw await this.incompleteRead(tenantId, recordingId, heads[0]?.seq ?? 0, counts.ev, `counted ${counts.ev} messages of ${subject}, read ${heads.length}`);
    }
    const plan = orderBatches(heads);
    if (plan.batches.length === 0) return;

    const assembler = new BatchAssembler(plan);
    const lastSeq = heads[heads.length - 1].seq;
    try {
      for await (const m of this.scan(subject, false, heads[0].seq, heads.length, signal, pullSize(plan.maxMessageBytes))) {
        const done = assembler.add(m.seq, m.headers?.get(H.batch) ?? `seq-${m.seq}`, m.data);
        if (done) {
          const out = merger.take(decode(done.payload), done.releaseBelow);
          if (out.length) yield out;
        }
        if (m.seq >= lastSeq) break;
      }
      if (!signal?.aborted && assembler.outstanding > 0) throw new ReadPlanMismatch(`${assembler.outstanding} planned messages of ${subject} were not delivered`);
    } catch (e) {
      if (e instanceof ReadPlanMismatch) throw await this.incompleteRead(tenantId, recordingId, heads[0].seq, counts.ev, e.message);
      throw e;
    }
    const rest = [...merger.drainAll()];
    if (rest.length) yield rest;
  }

  /**
   * The error for a read that did not get the messages it planned: 404 when the recording was deleted
   * meanwhile (a marker above the first message read, and fewer event messages than counted: what a
   * read started a moment later answers), else 503 (JetStream failed the read; a retry reads it whole).
   */
  private async incompleteRead(tenantId: string, recordingId: string, firstSeq: number, countedEv: number, why: string): Promise<AppError> {
    const [marker, now] = await Promise.all([this.lastDeletionSeq(tenantId, recordingId).catch(() => undefined), this.subjectCounts(tenantId, recordingId).catch(() => undefined)]);
    if (marker !== undefined && marker > firstSeq && now !== undefined && now.ev < countedEv) return notFound('Recording not found (it was deleted while being read)');
    this.logger.warn({ msg: 'read did not get the messages it planned', tenantId, recordingId, why });
    return new StoreUnavailable('Event store (NATS JetStream) returned an incomplete read; retry later');
  }

  /**
   * Reads up to `expected` messages of a subject through an ephemeral consumer on the stream leader
   * (see leader-consumer.ts: a replica's history may differ from the leader's on nats-server 2.9).
   * A consumer lost mid-read (the server deletes it once no pull has waited for its inactive
   * threshold: a reader that paused that long) is replaced by one starting after the last message
   * read; callers check what they got against what they planned.
   */
  private async *scan(subject: string, headersOnly: boolean, startSeq: number, expected: number, signal?: AbortSignal, maxMessages = headersOnly ? 1000 : 64): AsyncGenerator<JsMsg> {
    let next = startSeq;
    let read = 0;
    for (let fruitless = 0; fruitless < 3 && !signal?.aborted; ) {
      let consumer;
      try {
        consumer = await leaderConsumer(this.nats, { filterSubject: subject, headersOnly, startSeq: next, inactiveThresholdMs: this.tuning.readInactiveMs });
      } catch (e) {
        this.logger.warn({ msg: 'no read consumer on the stream leader', err: String((e as Error).message) });
        throw new StoreUnavailable('Event store (NATS JetStream) cannot serve a consistent read now; retry later');
      }
      // Pull again when half was read: one pull request per maxMessages / 2 messages, none sent
      // beyond what the reader has taken (nats.js sends a refill only when its iterator reaches it).
      const expires = this.tuning.pullExpiresMs;
      const messages = await consumer.consume({ max_messages: maxMessages, threshold_messages: Math.max(1, maxMessages >> 1), expires, idle_heartbeat: this.tuning.idleHeartbeatMs ?? Math.min(1000, expires / 2), abort_on_missing_resource: true });
      let caughtUp = false;
      heartbeatsOnlyWhenCaughtUp(messages, () => caughtUp);
      const abort = () => messages.stop();
      signal?.addEventListener('abort', abort);
      const before = read;
      // The subject may hold fewer messages than counted (deleted since): with nothing
      // left to deliver, nats.js would wait for new ones forever. Callers check what they got.
      const drained = await nothingLeft(consumer, true);
      const watch = drained ? undefined : idleWatch(() => caughtUp, () => nothingLeft(consumer, false), () => messages.stop());
      try {
        if (drained) return;
        const it = messages[Symbol.asyncIterator]();
        for (;;) {
          caughtUp = true; // waiting on nats.js: everything delivered was taken
          const r = await it.next();
          caughtUp = false;
          watch?.progress();
          if (r.done) break;
          const m = r.value;
          yield m;
          read++;
          next = m.seq + 1;
          if (read >= expected || m.info.pending === 0) return;
        }
        if (watch?.fired) return;
      } catch (e) {
        if (!isReadConsumerLost(e)) throw e;
      } finally {
        watch?.stop();
        signal?.removeEventListener('abort', abort);
        messages.stop();
        await consumer.delete().catch(() => undefined);
      }
      if (signal?.aborted) return;
      fruitless = read > before ? 0 : fruitless + 1;
      this.logger.warn({ msg: 'read consumer lost; continuing on a new one', subject, next, read, expected });
    }
  }

  /**
   * Deletes a recording: appends a deletion marker (seq D), then deletes every message of the
   * recording below D, one by one. The projectors remove the recording's rows below D when they
   * apply the marker, so the stream and the projections agree on the same cut: events written for
   * the same id after D are a new recording in both. A failure part way answers 503 and a retry
   * (a new marker) deletes what is left; so does the next read after a crash (see messageCounts).
   * Returns the messages deleted and the marker's stream sequence.
   *
   * Not a filtered stream purge: on nats-server before 2.10.11 a purge filtered on one recording
   * moves every consumer with a wider filter past the stream's last message (nats-io/nats-server
   * #3838, #5075), so the projector skipped other recordings' acknowledged batches written while it
   * was between two pulls, and concurrent reads of other recordings came up short. Deleting single
   * messages moves no consumer.
   */
  async deleteRecording(tenantId: string, recordingId: string): Promise<{ deleted: number; markerSeq: number }> {
    this.assertConnected();
    const h = natsHeaders();
    const id = `del.${randomUUID()}`;
    h.set(H.batch, id);
    const marker = await this.publish(recordingSubject(tenantId, recordingId, 'del'), new TextEncoder().encode(JSON.stringify({ deletedAt: Date.now() })), id, h);
    return { deleted: await this.deleteMessagesBelow(tenantId, recordingId, marker.seq), markerSeq: marker.seq };
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
      this.logger.warn({ msg: 'deleting a recording\'s messages failed', err: String((e as Error).message) });
      throw new StoreUnavailable('Event store (NATS JetStream) could not delete the recording; retry');
    }
  }

  private async deleteEachBelow(tenantId: string, recordingId: string, belowSeq: number, counts?: MessageCounts): Promise<number> {
    const c = counts ?? (await this.subjectCounts(tenantId, recordingId));
    const seqs: number[] = [];
    for await (const m of this.scan(recordingWildcard(tenantId, recordingId), true, 0, c.ev + c.meta + c.del)) {
      if (m.seq >= belowSeq) break;
      seqs.push(m.seq);
    }
    let deleted = 0;
    let next = 0;
    const worker = async () => {
      while (next < seqs.length) {
        const seq = seqs[next++];
        try {
          if (await this.nats.jsm.streams.deleteMessage(EVENTS_STREAM, seq, false)) deleted++;
        } catch (e) {
          // Already gone (a concurrent deletion or retention sweep) is what was wanted.
          if (!isAlreadyDeleted(e)) throw e;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(DELETES_IN_FLIGHT, seqs.length) }, worker));
    return deleted;
  }
}
