// Listing and detail of recordings from the ClickHouse projections (see recordings-query.sql.ts; listings
// read time-sorted data and verify the page's candidates by id, see recordings-timeline.ts).
// Read-your-writes: the projections lag JetStream by about a second, so a detail request for a
// recording that JetStream holds but ClickHouse does not (yet) answers `projected: false` with an
// empty summary instead of 404; the listing shows a recording once its first batch is projected.
import { Injectable } from '@nestjs/common';
import { AppError, notFound } from '../common/app-error';
import { ClickHouse } from '../infrastructure/clickhouse/clickhouse-client';
import { cachedFilterCounts } from './metadata-filter.counts';
import { recordingLinks } from './recording-links';
import { LinkSigner, LinkSigning } from '../auth/link-signer';
import { RecordingEventsService } from './recording-events.service';
import type { ListParams } from './recordings-query.params';
import { fromReadModel } from './recordings-query.read-model';
import { RecordingsSql } from './recordings-query.sql';
import { fetchDetails, filteredPage, ListingPage, NARROW, narrowPage, newestPage, PageDetails, PageRow, VERIFY_MAX } from './recordings-timeline';
import { metadataById, RecordingView, toRecordingView, toSummary } from './recordings-query.view';

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
    const { rows, details } = await fromReadModel(this.page(tenantId, p));
    const page = rows.slice(0, p.limit);
    const { summaries, metadata } = details;
    const summaryOf = new Map(summaries.map((s) => [s.recording_id, s]));
    const metadataOf = metadataById(metadata);
    const recordings = page.map((r) =>
      toRecordingView(r.recording_id, Number(r.started_at), this.links(r.recording_id, signing), metadataOf.get(r.recording_id), toSummary(summaryOf.get(r.recording_id))),
    );
    return { recordings, limit: p.limit, offset: p.offset, hasMore: rows.length > p.limit, ...(signing ? { signedUrlsExpireAt: signing.expires } : {}) };
  }

  async get(tenantId: string, recordingId: string, includeSignedUrls: boolean): Promise<RecordingDetail> {
    const signing = includeSignedUrls ? this.signer.forTenant(tenantId) : undefined;
    let details: PageDetails;
    try {
      details = await fromReadModel(fetchDetails(this.ch, tenantId, [recordingId], undefined, true));
    } catch (e) {
      // ClickHouse unreachable: JetStream, the source of truth, still tells whether the recording exists.
      if (!(e instanceof AppError && e.code === 'unavailable')) throw e;
      details = { summaries: [], metadata: [] };
    }
    const { summaries, metadata } = details;
    const projected = summaries.length > 0 || metadata.length > 0;
    if (!projected && !(await this.events.exists(tenantId, recordingId))) throw notFound('Recording not found');
    const summary = toSummary(summaries[0]);
    const view = toRecordingView(recordingId, summary.startedAt, this.links(recordingId, signing), metadataById(metadata).get(recordingId), summary);
    return { ...view, projected, ...(signing ? { signedUrlsExpireAt: signing.expires } : {}) };
  }

  /**
   * The page's recordings (limit + 1) and their details. From time-sorted data (recordings-timeline.ts)
   * unless a filtered page lies deeper than VERIFY_MAX: then from `recordings` FINAL and the filter SQL.
   */
  private async page(tenantId: string, p: ListParams): Promise<ListingPage> {
    if (p.filters.length === 0) return newestPage(this.ch, tenantId, p.limit, p.offset);
    const counts = await cachedFilterCounts(this.ch, tenantId, p.filters);
    if (!counts) return { rows: [], details: { summaries: [], metadata: [] } };
    if (p.offset + p.limit + 1 <= VERIFY_MAX) {
      const narrow = counts.smallest <= NARROW ? await narrowPage(this.ch, tenantId, counts.filters, p.limit, p.offset) : undefined;
      return narrow ?? filteredPage(this.ch, tenantId, counts.filters, p.limit, p.offset);
    }
    const rows = await this.ch.rows<PageRow>(RecordingsSql.page({ tenantId, filters: counts.filters }, p.limit, p.offset));
    return { rows, details: await fetchDetails(this.ch, tenantId, rows.slice(0, p.limit).map((r) => r.recording_id), undefined, true) };
  }

  private links(recordingId: string, signing?: LinkSigning) {
    return recordingLinks(recordingId, this.signer.base, signing?.query({ kind: 'recording', recordingId }));
  }
}
