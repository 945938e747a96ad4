// Follows one recording's subjects as JetStream stores them (the live feed's source): an ephemeral
// AckNone consumer on the stream leader (leader-consumer.ts), filtered on td.rec.<t>.<r>.>, from a
// given stream sequence, delivering every message once and in order. A consumer lost on the way (a
// leader change, a restarted server) is replaced by one starting after the last message delivered,
// so the handler sees no gap and no repeat.
import { Logger } from '@nestjs/common';
import type { ConsumerMessages } from 'nats';
import { leaderConsumer } from './leader-consumer';
import type { NatsClient } from './nats-connection';
import { EVENTS_STREAM, H, parseSubject, recordingSubject, recordingWildcard, SubjectKind } from './subjects';

export interface TailMessage {
  seq: number;
  kind: SubjectKind;
  /** Td-Batch and Td-Chunk ("i/n") of an event batch message. */
  batch?: string;
  chunk?: string;
  data: Uint8Array;
  /** When JetStream stored it (epoch ms). */
  storedAt: number;
}

export interface Tail {
  stop(): void;
}

const RETRY_MS = 1000;
/** Messages pulled ahead; a handler never waits on a viewer, so this only bounds a burst. */
const PULL = 256;

export class RecordingTails {
  private readonly logger = new Logger('live');

  constructor(private readonly nats: NatsClient) {}

  /** The stream's last sequence: everything at or below it is readable now, everything above is still to come. */
  async position(): Promise<number> {
    return (await this.nats.jsm.streams.info(EVENTS_STREAM)).state.last_seq;
  }

  /** When the recording's last event batch was stored (epoch ms), undefined without one. */
  async lastEventAt(tenantId: string, recordingId: string): Promise<number | undefined> {
    try {
      const m = await this.nats.jsm.streams.getMessage(EVENTS_STREAM, { last_by_subj: recordingSubject(tenantId, recordingId, 'ev') });
      return m.time.getTime();
    } catch {
      return undefined;
    }
  }

  /** Calls `onMessage` for every message of the recording from `startSeq` on, until stopped. */
  follow(tenantId: string, recordingId: string, startSeq: number, onMessage: (m: TailMessage) => void): Tail {
    const subject = recordingWildcard(tenantId, recordingId);
    let next = Math.max(1, startSeq);
    let stopped = false;
    let current: ConsumerMessages | undefined;
    let retry: NodeJS.Timeout | undefined;
    const run = async () => {
      while (!stopped) {
        try {
          const consumer = await leaderConsumer(this.nats, { filterSubject: subject, headersOnly: false, startSeq: next, inactiveThresholdMs: 30_000 });
          try {
            if (stopped) return;
            current = await consumer.consume({ max_messages: PULL, expires: 30_000, idle_heartbeat: 5_000, abort_on_missing_resource: true });
            for await (const m of current) {
              if (stopped) break;
              if (m.seq < next) continue;
              next = m.seq + 1;
              const kind = parseSubject(m.subject)?.kind;
              // A sealed batch record repeats a batch stored earlier (docs/archives.md): nothing new to follow.
              if (!kind || m.headers?.has(H.sealed)) continue;
              onMessage({
                seq: m.seq,
                kind,
                batch: m.headers?.get(H.batch) || undefined,
                chunk: m.headers?.get(H.chunk) || undefined,
                data: m.data,
                storedAt: Math.floor(m.info.timestampNanos / 1e6),
              });
            }
          } finally {
            current?.stop();
            await consumer.delete().catch(() => undefined);
          }
        } catch (e) {
          if (!stopped) this.logger.warn({ msg: 'live tail lost; following again', subject, next, err: String((e as Error).message) });
        }
        if (!stopped) await new Promise<void>((resolve) => (retry = setTimeout(resolve, RETRY_MS)));
      }
    };
    void run();
    return {
      stop: () => {
        stopped = true;
        if (retry) clearTimeout(retry);
        current?.stop();
      },
    };
  }
}
