// The EventStore port on JetStream: a writer (append, chunking, duplicate repair), a reader (the
// two-pass ordered read) and a deleter (marker, then the messages below it) over one stream. Acks,
// failures and retries are each part's contract (see their files); this only puts them together.
import type { BatchSummary } from '../../domain/batch-summary';
import type { AppendResult, EventStore, MessageCounts, RawEvent, ReadOptions, ResponseSource } from '../../domain/event-store';
import type { RrwebEvent } from '../../domain/rrweb-event';
import type { KeyframeHeader } from '../../domain/server-keyframes';
import { ArchiveStore } from './archive-store';
import { EventDeleter } from './event-deleter';
import { EventReader } from './event-reader';
import { EventWriter } from './event-writer';
import { DEFAULT_READ_TUNING, MessageScanner, ReadTuning } from './message-scan';
import type { NatsClient } from './nats-connection';
import { RecordingMessages } from './recording-messages';

export class JetStreamEventStore implements EventStore {
  private readonly writer: EventWriter;
  private readonly reader: EventReader;
  private readonly deleter: EventDeleter;

  constructor(
    nats: NatsClient,
    publishTimeoutMs: number,
    tuning: ReadTuning = DEFAULT_READ_TUNING,
    readonly archives: ArchiveStore = new ArchiveStore(nats),
  ) {
    const messages = new RecordingMessages(nats, publishTimeoutMs);
    const scanner = new MessageScanner(nats, tuning);
    this.deleter = new EventDeleter(messages, scanner, archives, nats);
    this.reader = new EventReader(messages, scanner, this.deleter, archives);
    this.writer = new EventWriter(messages, scanner, (tenantId, recordingId) => this.reader.messageCounts(tenantId, recordingId));
  }

  appendBatch(tenantId: string, recordingId: string, batchId: string, payload: Uint8Array, summary: BatchSummary, activity?: string): Promise<AppendResult> {
    return this.writer.appendBatch(tenantId, recordingId, batchId, payload, summary, { activity });
  }

  appendMetadata(tenantId: string, recordingId: string, writeId: string, metadata: Record<string, string>): Promise<AppendResult> {
    return this.writer.appendMetadata(tenantId, recordingId, writeId, metadata);
  }

  appendKeyframe(tenantId: string, recordingId: string, header: KeyframeHeader, payload: Uint8Array): Promise<AppendResult> {
    return this.writer.appendKeyframe(tenantId, recordingId, header, payload);
  }

  storedPayload(tenantId: string, recordingId: string, kind: 'ev' | 'meta', seqs: number[]): Promise<Uint8Array | undefined> {
    return this.writer.storedPayload(tenantId, recordingId, kind, seqs);
  }

  read(tenantId: string, recordingId: string, options?: ReadOptions): AsyncGenerator<RrwebEvent> {
    return this.reader.read(tenantId, recordingId, options);
  }

  readRaw(tenantId: string, recordingId: string, options?: ReadOptions): AsyncGenerator<RawEvent[]> {
    return this.reader.readRaw(tenantId, recordingId, options);
  }

  readForResponse(tenantId: string, recordingId: string, options?: ReadOptions): Promise<ResponseSource> {
    return this.reader.readForResponse(tenantId, recordingId, options);
  }

  exists(tenantId: string, recordingId: string): Promise<boolean> {
    return this.reader.exists(tenantId, recordingId);
  }

  messageCounts(tenantId: string, recordingId: string): Promise<MessageCounts> {
    return this.reader.messageCounts(tenantId, recordingId);
  }

  lastEventSeq(tenantId: string, recordingId: string): Promise<number | undefined> {
    return this.reader.lastEventSeq(tenantId, recordingId);
  }

  lastDeletionSeq(tenantId: string, recordingId: string): Promise<number | undefined> {
    return this.reader.lastDeletionSeq(tenantId, recordingId);
  }

  deleteRecording(tenantId: string, recordingId: string): Promise<{ deleted: number; markerSeq: number }> {
    return this.deleter.deleteRecording(tenantId, recordingId);
  }

  sweepDeletedArchives(): Promise<number> {
    return this.deleter.sweepDeletedArchives();
  }
}
