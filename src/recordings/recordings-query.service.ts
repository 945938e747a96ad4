// Listing and detail of recordings from the ClickHouse projections (see recordings-query.sql.ts; the
// unfiltered listing reads a time window of recording_timeline, see recordings-timeline.ts).
// Read-your-writes: the projections lag JetStream by about a second, so a detail request for a
// recording that JetStream holds but ClickHouse does not (yet) answers `projected: false` with an
// empty summary instead of 404; the listing shows a recording once its first batch is projected.
import { Injectable } from '@nestjs/common';
import { AppError, notFound } from '../common/app-error';
import { ClickHouse } from '../infrastructure/clickhouse/clickhouse-client';
import { bySelectivity } from './metadata-filter.counts';
import { recordingLinks } from './recording-links';
import { LinkSigner, LinkSigning } from '../auth/link-signer';
import { RecordingEventsService } from './recording-events.service';
import type { ListParams } from './recordings-query.params';
import { fromReadModel } from './recordings-query.read-model';
import { RecordingsSql } from './recordings-query.sql';
import { timelinePage } from './recordings-timeline';
import { MetadataRow, metadataById, RecordingView, SummaryRow, toRecordingView, toSummary } from './recordings-query.view';

export interface RecordingList {
  recordings: RecordingView[];
  limit: number;
  offset: number;
  /** True when at least one more recording follows this page. */
  hasMore: boolean;
  /** With includeSignedUrls: when every signed link of the response expires, UNIX seconds. */
  signedUrlsExpireAt?: number;
}

export type RecordingDetail = RecordingView & { projected: boolean; signedUrlsExpireAt?: number };

@Injectable()
export class RecordingsQueryService {
  constructor(
    private readonly ch: ClickHouse,
    private readonly events: RecordingEventsService,
    private readonly signer: LinkSigner,
  ) {}

  async list(tenantId: string, p: ListParams): Promise<RecordingList> {
    const signing = p.includeSignedUrls ? this.signer.forTenant(tenantId) : undefined;
    const { rows, since } = await fromReadModel(this.page(tenantId, p));
    const page = rows.slice(0, p.limit);
    const ids = page.map((r) => r.recording_id);
    const [summaries, metadata] = ids.length ? await fromReadModel(this.details(tenantId, ids, since)) : [[], []];
    const summaryOf = new Map(summaries.map((s) => [s.recording_id, s]));
    const metadataOf = metadataById(metadata);
    const recordings = page.map((r) =>
      toRecordingView(r.recording_id, Number(r.started_at), this.links(r.recording_id, signing), metadataOf.get(r.recording_id), toSummary(summaryOf.get(r.recording_id))),
    );
    return { recordings, limit: p.limit, offset: p.offset, hasMore: rows.length > p.limit, ...(signing ? { signedUrlsExpireAt: signing.expires } : {}) };
  }

  async get(tenantId: string, recordingId: string, includeSignedUrls: boolean): Promise<RecordingDetail> {
    const signing = includeSignedUrls ? this.signer.forTenant(tenantId) : undefined;
    let details: [SummaryRow[], MetadataRow[]];
    try {
      details = await fromReadModel(this.details(tenantId, [recordingId]));
    } catch (e) {
      // ClickHouse unreachable: JetStream, the source of truth, still tells whether the recording exists.
      if (!(e instanceof AppError && e.code === 'unavailable')) throw e;
      details = [[], []];
    }
    const [summaries, metadata] = details;
    const projected = summaries.length > 0 || metadata.length > 0;
    if (!projected && !(await this.events.exists(tenantId, recordingId))) throw notFound('Recording not found');
    const summary = toSummary(summaries[0]);
    const view = toRecordingView(recordingId, summary.startedAt, this.links(recordingId, signing), metadataById(metadata).get(recordingId), summary);
    return { ...view, projected, ...(signing ? { signedUrlsExpireAt: signing.expires } : {}) };
  }

  /** The page's recordings (limit + 1); unfiltered listings come from a time window of recording_timeline. */
  private async page(tenantId: string, p: ListParams): Promise<{ rows: { recording_id: string; started_at: string }[]; since?: number }> {
    if (p.filters.length === 0) return timelinePage(this.ch, tenantId, p.limit, p.offset);
    const filters = await bySelectivity(this.ch, tenantId, p.filters);
    return { rows: filters ? await this.ch.rows<{ recording_id: string; started_at: string }>(RecordingsSql.page({ tenantId, filters }, p.limit, p.offset)) : [] };
  }

  private details(tenantId: string, ids: string[], since?: number): Promise<[SummaryRow[], MetadataRow[]]> {
    return Promise.all([this.ch.rows<SummaryRow>(RecordingsSql.summaries(tenantId, ids, since)), this.ch.rows<MetadataRow>(RecordingsSql.metadata(tenantId, ids))]);
  }

  private links(recordingId: string, signing?: LinkSigning) {
    return recordingLinks(recordingId, this.signer.base, signing?.query({ kind: 'recording', recordingId }));
  }
}
