// ClickHouse reads of single recordings (SQL in recordings.sql.ts): the summary and metadata of a
// detail, and the latest deletion marker the projector applied. Unreachable ClickHouse becomes
// StoreUnavailable; listings are read by the ListingPlanner (listing.planner.ts).
import { Injectable } from '@nestjs/common';
import { ClickHouse } from '../infrastructure/clickhouse/clickhouse-client';
import { NO_DETAILS, PageDetails } from './listing-page.util';
import { fromReadModel } from './read-model-errors.util';
import type { MetadataRow, SummaryRow } from './recording.view';
import { RecordingsSql } from './recordings.sql';

/** Summaries and (optionally) metadata of the given recordings; `since`: all of them started at or after it. */
export async function readDetails(ch: ClickHouse, tenantId: string, ids: string[], since: number | undefined, withMetadata: boolean): Promise<PageDetails> {
  if (ids.length === 0) return NO_DETAILS;
  const [summaries, metadata] = await Promise.all([
    ch.rows<SummaryRow>(RecordingsSql.summaries(tenantId, ids, since)),
    withMetadata ? ch.rows<MetadataRow>(RecordingsSql.metadata(tenantId, ids)) : Promise.resolve([]),
  ]);
  return { summaries, metadata };
}

@Injectable()
export class RecordingsRepository {
  constructor(private readonly ch: ClickHouse) {}

  /** The recording's summary and latest metadata: no rows when it is not projected (or deleted). */
  details(tenantId: string, recordingId: string): Promise<PageDetails> {
    return fromReadModel(readDetails(this.ch, tenantId, [recordingId], undefined, true));
  }

  /** Stream sequence of the recording's latest projected deletion marker: 0 when it has none. */
  async deletedThrough(tenantId: string, recordingId: string, signal?: AbortSignal): Promise<number> {
    const [row] = await fromReadModel(this.ch.rows<{ deleted_seq: string | number }>(RecordingsSql.deletedThrough(tenantId, recordingId), signal));
    return Number(row?.deleted_seq ?? 0);
  }
}
