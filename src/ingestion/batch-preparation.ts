// What an ingested batch becomes before it is stored, from the body as received to the bytes, id,
// summary and activity header that go to JetStream: decoding (content coding, UTF-8), parsing and
// validating, the content id, the summary. Pure and synchronous, so it runs the same in the service's
// thread (WebSocket frames, small HTTP bodies, all of them when INGEST_THREADS=0) and in a batch
// thread (batch-threads.ts). Measured: 0.3-0.5 ms and about 100 KB of garbage for a 16 KiB batch, a
// quarter of what such a batch costs the service's thread; 12 ms or more per MB.
import { createHash } from 'node:crypto';
import { AppError } from '../common/app-error';
import { ContentCoding, decodeBounded } from '../common/content-coding';
import { utf8 } from '../common/request-body';
import { activityHeader } from '../domain/activity/activity-header';
import { BatchSummary, ClientInfo, summarizeBatch } from '../domain/batch-summary';
import type { RrwebEvent } from '../domain/rrweb-event';
import { IngestFormat, parseEventBatch } from './event-batch.parser';

export const IDEMPOTENCY_KEY = /^[A-Za-z0-9_.:-]{1,128}$/;

/** An HTTP batch as received: everything its preparation needs, and nothing that cannot cross to a thread. */
export interface BatchBody {
  tenantId: string;
  recordingId: string;
  body: Uint8Array;
  coding: ContentCoding;
  format: IngestFormat;
  maxBodyBytes: number;
  maxEventBytes: number;
  client: ClientInfo;
  idempotencyKey?: string;
}

/** A batch ready to be admitted and stored. */
export interface PreparedBatch {
  events: number;
  /** UTF-8 JSON array of the events, as stored. */
  payload: Uint8Array;
  batchId: string;
  summary: BatchSummary;
  activity?: string;
}

/**
 * The batch id (and so JetStream's Nats-Msg-Id): from the client's Idempotency-Key when given, else
 * from the content, so blind retries are de-duplicated too.
 */
export function batchIdOf(tenantId: string, recordingId: string, idempotencyKey: string | undefined, payload: string): string {
  const h = createHash('sha256').update(`${tenantId}\n${recordingId}\n`);
  if (idempotencyKey !== undefined) {
    if (!IDEMPOTENCY_KEY.test(idempotencyKey)) throw new AppError('bad_request', 'Idempotency-Key must be 1-128 characters of A-Z a-z 0-9 _ . : -');
    h.update(`key\n${idempotencyKey}`);
  } else {
    h.update('content\n').update(payload);
  }
  return h.digest('hex').slice(0, 40);
}

/** Events already parsed and validated (WebSocket frames), with the payload stored for them. */
export interface EventsBatch {
  tenantId: string;
  recordingId: string;
  events: RrwebEvent[];
  /** The events as a JSON array, as stored. */
  payload: string;
  /** Becomes metadata only where the batch's recording-meta allows it (includePii). */
  client: ClientInfo;
  idempotencyKey?: string;
}

export function prepareEvents(b: EventsBatch): PreparedBatch {
  const batchId = batchIdOf(b.tenantId, b.recordingId, b.idempotencyKey, b.payload);
  // A copy of its own (TextEncoder, not Buffer's shared pool), so that a batch thread can move it.
  const bytes = encoder.encode(b.payload);
  return { events: b.events.length, payload: bytes, batchId, summary: summarizeBatch(b.events, bytes.length, b.client), activity: activityHeader(b.events) };
}

/** An HTTP body: decoded, parsed and validated (4xx AppErrors as the controller would answer them), then prepared. */
export function prepareBody(b: BatchBody): PreparedBatch {
  const raw = Buffer.from(b.body.buffer, b.body.byteOffset, b.body.byteLength);
  const text = utf8(decodeBounded(raw, b.coding, b.maxBodyBytes));
  const batch = parseEventBatch(text, b.format, b.maxEventBytes);
  return prepareEvents({ ...b, events: batch.events, payload: batch.payload });
}

const encoder = new TextEncoder();
