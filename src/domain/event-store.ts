// The event store port, in the shape of emmett's EventStore: append, read, delete a recording's history.
// Features inject it with EVENT_STORE; infrastructure/nats/event-store.ts implements it on JetStream.
// It fails with AppErrors only: StoreUnavailable (retry hint), StoreFull, not_found, payload_too_large.
import { AppError, notFound } from '../common/app-error';
import type { BatchSummary } from './batch-summary';
import type { RrwebEvent } from './rrweb-event';
import type { KeyframeHeader } from './server-keyframes';

export interface AppendResult {
  duplicate: boolean;
  seq: number;
  /** Stream sequence of each message (chunk) of the write: for a duplicate, where the earlier write is. */
  seqs: number[];
}

/**
 * Stored messages of a recording per kind: event batches (chunks), metadata writes, deletion markers,
 * server-made keyframes (`kf`, counted by the store; absent is none).
 */
export type MessageCounts = { ev: number; meta: number; del: number; kf?: number };

export interface ReadOptions {
  signal?: AbortSignal;
  /**
   * A recording with no event and no metadata is a 404 (AppError not_found), found by the count the
   * read starts from: a separate existence check before the read could see a recording that a
   * deletion removed before the read began, which then answered 200 [].
   */
  mustExist?: boolean;
  /** Only part of the recording (GET …/events?from=&to=&limit=): see ReadWindow. */
  window?: ReadWindow;
  /**
   * Only the batches stored at stream sequences after `after` and up to `upTo` (the live feed: what a
   * viewer lacks, up to where its subscription takes over).
   */
  seqs?: { after?: number; upTo?: number };
}

/**
 * A window on a recording's events. A window from T begins at the last keyframe at or before T (its
 * Meta first; from the first event when there is none), then every event up to `to`, at most `limit`
 * of them. The store reads only the batches that can hold such events and stops after the last.
 */
export interface ReadWindow {
  /**
   * The window's bounds in epoch ms (undefined: open), given the recording's first and last event
   * times; throws (an AppError or a ValidationError) for bounds the recording cannot answer.
   */
  resolve(firstTs: number, lastTs: number): { from?: number; to?: number };
  limit?: number;
  /** Where the keyframe index says the window starts (see WindowHint); the read checks it. */
  hint?: WindowHint;
}

/**
 * From the keyframe index: a window starting at the keyframe at `ts` needs no message below stream
 * sequence `seq`, and the recording's events span `first` to `last` as far as the index knows. The
 * read then reads headers from `seq` only, and everything when what it finds disagrees.
 */
export interface WindowHint {
  seq: number;
  ts: number;
  first: number;
  last: number;
  /**
   * The keyframe at `ts` is a server-made one, stored at this stream sequence (its `kf` message). With
   * a hint the read takes its server-made keyframe from here instead of reading every `kf` header.
   */
  server?: number;
}

/** One event as stored: its JSON object's bytes, and what ordering and de-duplication need. */
export interface RawEvent {
  timestamp: number;
  /** rrweb event type. */
  type: number;
  sequenceId?: number;
  /** The event's JSON object, `{` to `}` inclusive. */
  json: Uint8Array;
}

/** A GET …/events read: the response's bytes as stored (`stored`, in chunks), or the events to write it from (`runs`). */
export type ResponseSource = { stored: AsyncIterable<Uint8Array>; runs?: undefined } | { stored?: undefined; runs: AsyncGenerator<RawEvent[]> };

export interface EventStore {
  /** Appends one batch (a JSON array of events); resolves only once all of it is stored. A retried batch id is a duplicate. */
  /** `activity`: the batch's Td-Activity header (activity-header.ts), stored when the batch fits one message. */
  appendBatch(tenantId: string, recordingId: string, batchId: string, payload: Uint8Array, summary: BatchSummary, activity?: string): Promise<AppendResult>;
  /** Appends a metadata write (a JSON object of string values). */
  appendMetadata(tenantId: string, recordingId: string, writeId: string, metadata: Record<string, string>): Promise<AppendResult>;
  /**
   * Appends a server-made keyframe of the recording (its Meta and FullSnapshot as a JSON array), or a
   * failed attempt (`ok` false, empty payload): a message of its own, never returned as an event.
   */
  appendKeyframe(tenantId: string, recordingId: string, header: KeyframeHeader, payload: Uint8Array): Promise<AppendResult>;
  /** What an earlier write stored at `seqs`; undefined when it is gone (for comparing a duplicate with it). */
  storedPayload(tenantId: string, recordingId: string, kind: 'ev' | 'meta', seqs: number[]): Promise<Uint8Array | undefined>;

  /** The recording's events in timestamp order (stable), repeated batches and sequenceIds dropped. */
  read(tenantId: string, recordingId: string, options?: ReadOptions): AsyncGenerator<RrwebEvent>;
  /** `read` without decoding: the same events as their stored JSON, in runs. */
  readRaw(tenantId: string, recordingId: string, options?: ReadOptions): AsyncGenerator<RawEvent[]>;
  /**
   * What GET …/events answers, with one headers pass deciding: the body of a whole read as stored
   * ready-made (a sealed recording's archive), or, when the read must merge (a window, late batches,
   * nothing stored so), `readRaw`'s runs continuing from that pass.
   */
  readForResponse(tenantId: string, recordingId: string, options?: ReadOptions): Promise<ResponseSource>;
  /** The "recording exists" rule (see recordingExists). */
  exists(tenantId: string, recordingId: string): Promise<boolean>;
  messageCounts(tenantId: string, recordingId: string): Promise<MessageCounts>;
  /** A version of the recording's events (its last batch's stream sequence), undefined without events. */
  lastEventSeq(tenantId: string, recordingId: string): Promise<number | undefined>;
  /** Stream sequence of the recording's latest deletion marker, undefined when it was never deleted. */
  lastDeletionSeq(tenantId: string, recordingId: string): Promise<number | undefined>;

  /** Deletes the recording (a marker, then every message below it); returns the messages deleted and the marker's sequence. */
  deleteRecording(tenantId: string, recordingId: string): Promise<{ deleted: number; markerSeq: number }>;

  /**
   * Removes every archive made from messages of a deleted recording (below its latest deletion
   * marker) that a deletion could not: one a seal put and then died before naming it anywhere.
   * Returns the archives removed.
   */
  sweepDeletedArchives(): Promise<number>;
}
export const EVENT_STORE = Symbol('EVENT_STORE');

/** What composing replays needs of the store: one recording's events in order. */
export type RecordingEventSource = Pick<EventStore, 'read'>;

/**
 * A recording exists while the store holds an event batch or a metadata write of it; deletion
 * markers and server-made keyframes alone are none.
 */
export function recordingExists(counts: MessageCounts): boolean {
  return counts.ev + counts.meta > 0;
}

/** The answer for a recording that does not exist, wherever it is asked for. */
export const recordingNotFound = (): AppError => notFound('Recording not found');

/** Throws recordingNotFound unless the store holds the recording. */
export async function assertRecordingExists(store: Pick<EventStore, 'exists'>, tenantId: string, recordingId: string): Promise<void> {
  if (!(await store.exists(tenantId, recordingId))) throw recordingNotFound();
}
