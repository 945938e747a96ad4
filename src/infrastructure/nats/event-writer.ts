// Appends to JetStream, acknowledged only once JetStream acked every message (a publish that fails or
// times out throws: nothing is reported stored). Nats-Msg-Id derives from the batch id: a retry is a
// duplicate within the de-duplication window, and reads drop repeated batches beyond it.
import { Logger } from '@nestjs/common';
import { headers as natsHeaders, type PubAck } from 'nats';
import { AppError } from '../../common/app-error';
import type { BatchSummary } from '../../domain/batch-summary';
import { headerJson } from '../../domain/batch-summary';
import type { AppendResult, MessageCounts } from '../../domain/event-store';
import type { KeyframeHeader } from '../../domain/server-keyframes';
import type { MessageScanner } from './message-scan';
import type { RecordingMessages } from './recording-messages';
import { H, recordingSubject } from './subjects';

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

export interface AppendOptions {
  /** Makes the message ids fresh when a batch must be stored again (see the duplicate repair in appendBatch). */
  retrySuffix?: string;
  /** The Td-Activity header: stored only when the batch, with it, is one message (a chunked batch's activity is its summary's page). */
  activity?: string;
}

export class EventWriter {
  private readonly logger = new Logger('event-store');

  constructor(
    private readonly messages: RecordingMessages,
    private readonly scanner: MessageScanner,
    /** The recording's counts as a read starts from them (EventReader.messageCounts). */
    private readonly counts: (tenantId: string, recordingId: string) => Promise<MessageCounts>,
  ) {}

  /** Appends one batch (a JSON array of events). Resolves only when JetStream stored all of it. */
  async appendBatch(
    tenantId: string,
    recordingId: string,
    batchId: string,
    payload: Uint8Array,
    summary: BatchSummary,
    opts: AppendOptions = {},
  ): Promise<AppendResult> {
    const retrySuffix = opts.retrySuffix ?? '';
    const summaryHeader = headerJson(summary);
    const maxSummary = Math.min(MAX_SUMMARY_HEADER_BYTES, Math.floor((this.messages.maxPayload - CHUNK_HEADROOM) / 2));
    if (summaryHeader.length > maxSummary) {
      throw new AppError(
        'payload_too_large',
        `The batch's summary is ${summaryHeader.length} bytes, above the ${maxSummary} this server stores with a batch: ` +
          'its in-band metadata (recording-meta/pageview-meta payloads) or the number of distinct minutes its events span is too large. ' +
          'Send the events in smaller batches, and large metadata with POST /recordings/{recordingId}/metadata',
      );
    }
    this.messages.assertConnected();
    const subject = recordingSubject(tenantId, recordingId, 'ev');
    const withActivity =
      opts.activity !== undefined && chunkBounds(payload.length, this.messages.maxPayload, summaryHeader.length + opts.activity.length).length === 1;
    const bounds = chunkBounds(payload.length, this.messages.maxPayload, summaryHeader.length);
    const count = bounds.length;
    const chunk = (i: number) => {
      const h = natsHeaders();
      h.set(H.batch, batchId);
      if (count > 1) h.set(H.chunk, `${i}/${count}`);
      if (i === count - 1) h.set(H.summary, summaryHeader);
      if (withActivity) h.set(H.activity, opts.activity!);
      const msgId = (count > 1 ? `${batchId}.${i}/${count}` : batchId) + retrySuffix;
      return this.messages.publish(subject, payload.subarray(bounds[i][0], bounds[i][1]), msgId, h);
    };
    // One chunk at a time: JetStream stores a stream's messages in the order they come, for every
    // tenant, so a batch's chunks sent at once (8 MiB: 8 messages) made any other batch published
    // meanwhile wait for all of them; one after another, it waits for one (bench/README.md, noisy
    // neighbour: B's first-second ingestion p95 under a tenant's 8 MiB batches 18-40 ms against
    // 27-66). The summary (what the projections count) is stored only once every other chunk is:
    // a batch cut short (a stream full for its later chunks, a crash between them) is neither read,
    // which skips incomplete batches, nor counted in listings and statistics.
    const results: PubAck[] = [];
    for (let i = 0; i < count; i++) results.push(await chunk(i));
    if (results.some((r) => r.duplicate) && !(await this.batchComplete(tenantId, recordingId, batchId, count))) {
      // JetStream answered "duplicate" for data it does not hold (seen around stream leader changes:
      // the id was in the de-duplication map, the message was not committed). Store it again under
      // fresh message ids; reads collapse repeated batches by Td-Batch, so this cannot duplicate.
      this.logger.warn({ msg: 'duplicate ack for a batch that is not stored; republishing', subject, batchId });
      return this.appendBatch(tenantId, recordingId, batchId, payload, summary, { ...opts, retrySuffix: `~${Date.now().toString(36)}` });
    }
    return { duplicate: results.every((r) => r.duplicate), seq: results[results.length - 1].seq, seqs: results.map((r) => r.seq) };
  }

  /** Appends a metadata write (a JSON object of string values). */
  async appendMetadata(tenantId: string, recordingId: string, writeId: string, metadata: Record<string, string>): Promise<AppendResult> {
    this.messages.assertConnected();
    const h = natsHeaders();
    h.set(H.batch, writeId);
    const data = new TextEncoder().encode(JSON.stringify(metadata));
    // One message: a body just under the 1 MiB limit, its numbers and booleans stored as strings and
    // its headers added, can exceed max_payload, which JetStream would refuse on every retry.
    const max = this.messages.maxPayload - CHUNK_HEADROOM;
    if (data.length > max)
      throw new AppError('payload_too_large', `Metadata write too large to store: ${data.length} bytes as stored (values as strings), at most ${max}`);
    const ack = await this.messages.publish(recordingSubject(tenantId, recordingId, 'meta'), data, writeId, h);
    return { duplicate: ack.duplicate, seq: ack.seq, seqs: [ack.seq] };
  }

  /**
   * Appends a server-made keyframe (or a failed attempt, with an empty payload) as one `kf` message;
   * the same moment of the same recording is a duplicate within the stream's duplicate window. A
   * keyframe larger than one message is refused (payload_too_large): the caller records a failure.
   */
  async appendKeyframe(tenantId: string, recordingId: string, header: KeyframeHeader, payload: Uint8Array): Promise<AppendResult> {
    this.messages.assertConnected();
    const max = this.messages.maxPayload - CHUNK_HEADROOM;
    if (payload.length > max) throw new AppError('payload_too_large', `Keyframe too large to store: ${payload.length} bytes, at most ${max}`);
    const h = natsHeaders();
    const id = `kf.${tenantId}.${recordingId}.${header.ts}.${header.ok ? 'ok' : 'failed'}`;
    h.set(H.batch, id);
    h.set(H.keyframe, headerJson(header));
    const ack = await this.messages.publish(recordingSubject(tenantId, recordingId, 'kf'), payload, id, h);
    return { duplicate: ack.duplicate, seq: ack.seq, seqs: [ack.seq] };
  }

  /**
   * The data an earlier write stored at `seqs` (its chunks joined), undefined when a message is gone
   * or belongs to another subject. Read only on the rare path where a keyed write was a duplicate.
   */
  async storedPayload(tenantId: string, recordingId: string, kind: 'ev' | 'meta', seqs: number[]): Promise<Uint8Array | undefined> {
    const subject = recordingSubject(tenantId, recordingId, kind);
    const parts: Uint8Array[] = [];
    for (const seq of seqs) {
      const m = await this.messages.get(seq);
      if (m?.subject !== subject) return undefined;
      parts.push(m.data);
    }
    return Buffer.concat(parts);
  }

  /** Whether every chunk of a batch is in the stream (checked only on the rare duplicate path). */
  private async batchComplete(tenantId: string, recordingId: string, batchId: string, chunks: number): Promise<boolean> {
    const subject = recordingSubject(tenantId, recordingId, 'ev');
    const total = (await this.counts(tenantId, recordingId)).ev;
    const seen = new Set<string>();
    for await (const m of this.scanner.scan(subject, { headersOnly: true, startSeq: 0, expected: total })) {
      if (m.headers?.get(H.batch) === batchId) seen.add(m.headers?.get(H.chunk) || '0/1');
      if (seen.size >= chunks) return true;
    }
    return seen.size >= chunks;
  }
}
