// Erasing a tenant from the event stream: every message on td.rec.<tenantId>.> (event batches,
// metadata writes, deletion markers) is deleted one by one, as a recording's are (never a filtered
// purge: docs/reliability.md), pass after pass until a pass finds none. A write authorised just
// before the tenant was refused may land while a pass runs: `quietAfter` makes passes go on until
// one that starts after it finds nothing. A failure is a StoreUnavailable; running it again finishes.
import { Logger } from '@nestjs/common';
import { AppError, StoreUnavailable } from '../../common/app-error';
import { DEFAULT_READ_TUNING, MessageScanner, ReadTuning } from './message-scan';
import type { NatsClient } from './nats-connection';
import { RecordingMessages } from './recording-messages';
import { EVENTS_STREAM, tenantWildcard } from './subjects';

/** Sequences listed before they are deleted (one headers-only pull). */
const DELETE_BATCH = 1000;

export interface TenantErasure {
  /** Messages this run deleted. */
  deleted: number;
  /** The stream's last sequence once none of the tenant's messages was left: every one of them was at or below it. */
  throughSeq: number;
}

export class TenantMessages {
  private readonly logger = new Logger('event-store');
  private readonly messages: RecordingMessages;
  private readonly scanner: MessageScanner;

  constructor(
    private readonly nats: NatsClient,
    tuning: ReadTuning = DEFAULT_READ_TUNING,
  ) {
    this.messages = new RecordingMessages(nats, 0);
    this.scanner = new MessageScanner(nats, tuning);
  }

  /** Deletes every message of the tenant; `quietAfter` (epoch ms): the last pass starts no earlier. */
  async erase(tenantId: string, o: { quietAfter?: number; onProgress?: (deleted: number) => void } = {}): Promise<TenantErasure> {
    this.messages.assertConnected();
    let deleted = 0;
    try {
      for (;;) {
        const started = Date.now();
        const found = await this.pass(tenantId, (n) => o.onProgress?.((deleted += n)));
        if (found === 0 && started >= (o.quietAfter ?? 0)) break;
        if (found === 0) await new Promise((r) => setTimeout(r, Math.min(500, (o.quietAfter ?? 0) - started)));
      }
      return { deleted, throughSeq: (await this.nats.jsm.streams.info(EVENTS_STREAM)).state.last_seq };
    } catch (e) {
      if (e instanceof AppError) throw e;
      this.logger.warn({ msg: "deleting a tenant's messages failed", tenantId, deleted, err: String((e as Error).message) });
      throw new StoreUnavailable("Event store (NATS JetStream) could not delete the tenant's messages; run the deletion again");
    }
  }

  /** One pass over the tenant's messages from the start of the stream, deleting them as they are listed; returns how many it found. */
  private async pass(tenantId: string, onDeleted: (n: number) => void): Promise<number> {
    let found = 0;
    let seqs: number[] = [];
    const flush = async () => {
      onDeleted(await this.messages.deleteEach(seqs));
      seqs = [];
    };
    const scan = this.scanner.scan(tenantWildcard(tenantId), { headersOnly: true, startSeq: 0, expected: Infinity, maxMessages: DELETE_BATCH });
    for await (const m of scan) {
      seqs.push(m.seq);
      found++;
      if (seqs.length >= DELETE_BATCH) await flush();
    }
    if (seqs.length > 0) await flush();
    return found;
  }
}
