// One recording's messages in the event stream, one JetStream request at a time: publish, look up,
// count, delete. A request JetStream does not answer (or a lost connection) throws StoreUnavailable,
// a publish refused for lack of room StoreFull; a message that is not there is `undefined`.
import { Logger } from '@nestjs/common';
import type { MsgHdrs, PubAck, StoredMsg } from 'nats';
import { StoreFull, StoreUnavailable } from '../../common/app-error';
import type { MessageCounts } from '../../domain/event-store';
import { directGet } from './direct-get';
import { isAlreadyDeleted, isLimitRefusal, isNoMessage, refusalOf } from './jetstream-errors';
import type { NatsClient } from './nats-connection';
import { EVENTS_STREAM, recordingSubject, recordingWildcard } from './subjects';

/** Message deletions in flight while a recording (or a tenant) is deleted. */
const DELETES_IN_FLIGHT = 32;

export class RecordingMessages {
  private readonly logger = new Logger('event-store');

  constructor(
    private readonly nats: NatsClient,
    private readonly publishTimeoutMs: number,
  ) {}

  /** Largest message the server accepts; chunks are cut below it. */
  get maxPayload(): number {
    return this.nats.maxPayload;
  }

  assertConnected(): void {
    if (!this.nats.connected) {
      throw new StoreUnavailable('Event store (NATS JetStream) is unreachable; retry later');
    }
  }

  /** Resolves once JetStream acknowledged the message (PubAck.duplicate for a msgID it has seen). */
  async publish(subject: string, data: Uint8Array, msgID: string, h: MsgHdrs): Promise<PubAck> {
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

  /** The message at stream sequence `seq`, undefined when the stream holds none there. */
  get(seq: number): Promise<StoredMsg | undefined> {
    return this.stored(this.nats.jsm.streams.getMessage(EVENTS_STREAM, { seq }));
  }

  /** Stream sequence of the last message on `subject`, undefined when it has none. */
  async lastSeq(subject: string): Promise<number | undefined> {
    return (await this.last(subject))?.seq;
  }

  /** The last message on `subject`, undefined when it has none. */
  last(subject: string): Promise<StoredMsg | undefined> {
    this.assertConnected();
    return this.stored(this.nats.jsm.streams.getMessage(EVENTS_STREAM, { last_by_subj: subject }));
  }

  /** The first message on `subject`, undefined when it has none. */
  first(subject: string): Promise<StoredMsg | undefined> {
    this.assertConnected();
    return this.stored(directGet(this.nats, { seq: 1, next_by_subj: subject }));
  }

  /** Whether the recording has any message (of any kind) stored below `seq`. */
  async holdsBelow(tenantId: string, recordingId: string, seq: number): Promise<boolean> {
    const first = await this.first(recordingWildcard(tenantId, recordingId));
    return first !== undefined && first.seq < seq;
  }

  /** Number of stored messages per kind, as the stream counts them now. */
  async counts(tenantId: string, recordingId: string): Promise<MessageCounts> {
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
      kf: subjects[recordingSubject(tenantId, recordingId, 'kf')] ?? 0,
    };
  }

  /** Deletes one message (not erased: overwriting it is not needed); false when JetStream did not. Errors are the caller's. */
  delete(seq: number): Promise<boolean> {
    return this.nats.jsm.streams.deleteMessage(EVENTS_STREAM, seq, /* erase: */ false);
  }

  /**
   * Deletes the messages at `seqs`, DELETES_IN_FLIGHT at a time; a message already gone counts as
   * deleted by someone else (a concurrent deletion or retention sweep). Returns how many this call
   * deleted. Errors are the caller's.
   */
  async deleteEach(seqs: readonly number[]): Promise<number> {
    let deleted = 0;
    let next = 0;
    const worker = async () => {
      while (next < seqs.length) {
        const seq = seqs[next++];
        try {
          if (await this.delete(seq)) deleted++;
        } catch (e) {
          if (!isAlreadyDeleted(e)) throw e;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(DELETES_IN_FLIGHT, seqs.length) }, worker));
    return deleted;
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
}
