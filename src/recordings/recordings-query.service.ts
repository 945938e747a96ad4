// Listing and detail of recordings from the ClickHouse projections (read-model/: listings are planned
// by the ListingPlanner, which reads time-sorted data and verifies a page's candidates by id).
// Read-your-writes: the projections lag JetStream by about a second, so a detail request for a
// recording that JetStream holds but ClickHouse does not (yet) answers `projected: false` with an
// empty summary instead of 404; the listing shows a recording once its first batch is projected.
// Read-your-deletes: DELETE answers once the projections hide the recording (bounded wait, see
// awaitDeletionProjected), and a detail request never shows rows that predate the event store's
// latest deletion marker of the recording, even while the projector lags.
// Live: one cutoff per request (now - LIVE_IDLE_SECONDS) decides both the `live` filter and each item's
// `live`, so a page never lists under live=true an item that says live: false.
import { Inject, Injectable, Optional } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { AppError } from '../common/app-error';
import { APP_CONFIG, AppConfig } from '../config/config';
import { LinkSigner, LinkSigning } from '../auth/link-signer';
import { ActivityRepository } from '../read-model/activity.repository';
import type { ActivitySummary } from '../read-model/activity-summary';
import type { PageDetails } from '../read-model/listing-page.util';
import { ListingPlanner } from '../read-model/listing.planner';
import { metadataById, RecordingSummary, toRecordingView, toSummary } from '../read-model/recording.view';
import { RecordingsRepository } from '../read-model/recordings.repository';
import { recordingLinks } from './recording-links';
import { RecordingEventsService } from './recording-events.service';
import type { ListParams } from './recordings-query.params';
import type { RecordingDetail, RecordingList } from './recordings.dto';

/** How long DELETE waits for the projections to hide the recording (the projector's linger plus an insert, when healthy). */
const DELETION_WAIT_MS = 3000;
const DELETION_POLL_MS = 50;

const hasRows = (d: PageDetails) => d.summaries.length > 0 || d.metadata.length > 0;

/** How long a finished recording's activity summary is reused (a rebuilt or lagging activity projection shows within this). */
const FINISHED_ACTIVITY_TTL_MS = 60_000;

/**
 * What a finished recording's activity summary is kept under: its summary's counts and span (a late
 * batch changes them). Undefined while it is live: its activity still grows.
 */
const finishedVersion = (s: RecordingSummary, liveSince: number): string | undefined =>
  s.lastActivityAt !== null && s.lastActivityAt < liveSince ? `${s.eventCount}/${s.bytes}/${s.startedAt}/${s.endedAt}` : undefined;

/** Activity summaries whose read started for a likely page, by recording, with the span they were read for. */
type EarlyActivity = Map<string, { span: string; read: Promise<Map<string, ActivitySummary>> }>;
const spanKey = (s: RecordingSummary) => `${s.startedAt}/${s.endedAt}`;

@Injectable()
export class RecordingsQueryService {
  // Finished recordings' activity summaries by tenant/recording: a list loaded again (the console's
  // recordings page) reads the activity projection only for recordings that changed. Three
  // aggregations over every activity row of the page are the listing's most expensive reads.
  private readonly finishedActivity = new LRUCache<string, { version: string; summary: ActivitySummary }>({ max: 50_000, ttl: FINISHED_ACTIVITY_TTL_MS });

  constructor(
    private readonly listing: ListingPlanner,
    private readonly recordings: RecordingsRepository,
    private readonly events: RecordingEventsService,
    private readonly signer: LinkSigner,
    @Inject(APP_CONFIG) private readonly cfg: Pick<AppConfig, 'LIVE_IDLE_SECONDS'> = { LIVE_IDLE_SECONDS: 60 },
    /** Absent in unit specs that do not look at activity: summaries are then zeros. */
    @Optional() private readonly activity?: ActivityRepository,
  ) {}

  /** The live cutoff now: a recording with a batch stored at or after it is live. */
  private liveSince(): number {
    return Date.now() - this.cfg.LIVE_IDLE_SECONDS * 1000;
  }

  async list(tenantId: string, p: ListParams): Promise<RecordingList> {
    const signing = p.includeSignedUrls ? this.signer.forTenant(tenantId) : undefined;
    const since = this.liveSince();
    // The likely page's activity summaries are read beside the planner's checks of it (one read fewer
    // after the page); recordings that only the final page holds are read after it.
    const early: EarlyActivity = new Map();
    const { rows, details } = await this.listing.page(tenantId, {
      filters: p.filters,
      limit: p.limit,
      offset: p.offset,
      live: p.live === undefined ? undefined : { live: p.live, since },
      activity: p.activity,
      started: p.started,
      onLikelyPage: (likely) => {
        // A recording's span as a window holds it (one that started before the window, partly):
        // read again when a wider window shows more of it.
        const fresh = new Map(
          likely.map((r): [string, RecordingSummary] => [r.recording_id, toSummary(r)]).filter(([id, s]) => early.get(id)?.span !== spanKey(s)),
        );
        if (fresh.size === 0) return;
        const read = this.activitySummaries(tenantId, fresh, since, false);
        read.catch(() => undefined); // awaited below only for recordings the final page holds
        for (const [id, s] of fresh) early.set(id, { span: spanKey(s), read });
      },
    });
    const page = rows.slice(0, p.limit);
    const { summaries, metadata } = details;
    const summaryOf = new Map(page.map((r) => [r.recording_id, toSummary(summaries.find((s) => s.recording_id === r.recording_id))]));
    const metadataOf = metadataById(metadata);
    const activityOf = await this.pageActivity(tenantId, summaryOf, since, early);
    const recordings = page.map((r) =>
      toRecordingView(
        r.recording_id,
        Number(r.started_at),
        this.links(r.recording_id, signing),
        metadataOf.get(r.recording_id),
        summaryOf.get(r.recording_id)!,
        since,
        activityOf.get(r.recording_id),
      ),
    );
    return { recordings, limit: p.limit, offset: p.offset, hasMore: rows.length > p.limit, ...(signing ? { signedUrlsExpireAt: signing.expires } : {}) };
  }

  /** `withActivity: false`: the activity summary is left at zeros (the player page's heading does not show it). */
  async get(tenantId: string, recordingId: string, includeSignedUrls: boolean, withActivity = true): Promise<RecordingDetail> {
    const signing = includeSignedUrls ? this.signer.forTenant(tenantId) : undefined;
    let details: PageDetails;
    try {
      details = await this.recordings.details(tenantId, recordingId);
      if (hasRows(details) && !(await this.latestDeletionProjected(tenantId, recordingId))) details = { summaries: [], metadata: [] };
    } catch (e) {
      // ClickHouse unreachable: JetStream, the source of truth, still tells whether the recording exists.
      if (!(e instanceof AppError && e.code === 'unavailable')) throw e;
      details = { summaries: [], metadata: [] };
    }
    const { summaries, metadata } = details;
    const projected = hasRows(details);
    if (!projected) await this.events.assertExists(tenantId, recordingId);
    const summary = toSummary(summaries[0]);
    const since = this.liveSince();
    const activity =
      projected && withActivity ? await this.activitySummaries(tenantId, new Map([[recordingId, summary]]), since).catch(() => undefined) : undefined;
    const view = toRecordingView(
      recordingId,
      summary.startedAt,
      this.links(recordingId, signing),
      metadataById(metadata).get(recordingId),
      summary,
      since,
      activity?.get(recordingId),
    );
    return { ...view, projected, ...(signing ? { signedUrlsExpireAt: signing.expires } : {}) };
  }

  /**
   * Waits until the projections hide what the deletion marker at stream sequence `markerSeq` deleted
   * (its row in deleted_recordings), at most `timeoutMs`: then listing, detail, statistics and replays
   * agree with the event store. False when the wait ran out or ClickHouse did not answer (the
   * projector applies the marker later; detail requests check the marker themselves meanwhile).
   */
  async awaitDeletionProjected(tenantId: string, recordingId: string, markerSeq: number, timeoutMs = DELETION_WAIT_MS): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        // A frozen ClickHouse never answers: the wait is bounded by the deadline, not by the client's 30 s.
        if (await this.deletionProjected(tenantId, recordingId, markerSeq, AbortSignal.timeout(Math.max(1, deadline - Date.now())))) return true;
      } catch {
        return false;
      }
      if (Date.now() >= deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, DELETION_POLL_MS));
    }
  }

  private async deletionProjected(tenantId: string, recordingId: string, markerSeq: number, signal?: AbortSignal): Promise<boolean> {
    return (await this.recordings.deletedThrough(tenantId, recordingId, signal)) >= markerSeq;
  }

  /** True unless the event store holds a deletion marker of the recording that the projections have not applied yet. */
  private async latestDeletionProjected(tenantId: string, recordingId: string): Promise<boolean> {
    const markerSeq = await this.events.lastDeletionSeq(tenantId, recordingId);
    return markerSeq === undefined || this.deletionProjected(tenantId, recordingId, markerSeq);
  }

  /** The page's activity summaries: from the reads started for the likely page, the rest read now. */
  private async pageActivity(
    tenantId: string,
    summaries: ReadonlyMap<string, RecordingSummary>,
    liveSince: number,
    early: EarlyActivity,
  ): Promise<Map<string, ActivitySummary>> {
    const readEarly = (id: string, s: RecordingSummary) => early.get(id)?.span === spanKey(s);
    const rest = new Map([...summaries].filter(([id, s]) => !readEarly(id, s)));
    const reads = new Set([...summaries].flatMap(([id, s]) => (readEarly(id, s) ? [early.get(id)!.read] : [])));
    const out = rest.size ? await this.activitySummaries(tenantId, rest, liveSince) : new Map<string, ActivitySummary>();
    for (const read of reads)
      for (const [id, summary] of await read) {
        const s = summaries.get(id);
        if (!s || rest.has(id)) continue;
        out.set(id, summary);
        this.remember(tenantId, id, s, summary, liveSince);
      }
    return out;
  }

  /** Keeps a finished recording's activity summary under its version (its summary as read). */
  private remember(tenantId: string, id: string, s: RecordingSummary, summary: ActivitySummary, liveSince: number) {
    const version = finishedVersion(s, liveSince);
    if (version !== undefined) this.finishedActivity.set(`${tenantId}/${id}`, { version, summary });
  }

  /**
   * The activity summaries of recordings with a projected summary (their span bounds active time):
   * finished ones unchanged since they were last read from memory, the others from the projection.
   * `remember: false` (a likely page's, whose spans may be a window's part of a recording): not kept.
   */
  private async activitySummaries(
    tenantId: string,
    summaries: ReadonlyMap<string, RecordingSummary>,
    liveSince: number,
    remember = true,
  ): Promise<Map<string, ActivitySummary>> {
    const out = new Map<string, ActivitySummary>();
    if (!this.activity) return out;
    const spans = new Map<string, { first: number; last: number }>();
    for (const [id, s] of summaries) {
      if (s.startedAt === null || s.endedAt === null) continue;
      const version = finishedVersion(s, liveSince);
      const kept = version === undefined ? undefined : this.finishedActivity.get(`${tenantId}/${id}`);
      if (kept && kept.version === version) {
        out.set(id, kept.summary);
        continue;
      }
      spans.set(id, { first: s.startedAt, last: s.endedAt });
    }
    if (spans.size === 0) return out;
    for (const [id, summary] of await this.activity.summaries(tenantId, spans)) {
      out.set(id, summary);
      if (remember) this.remember(tenantId, id, summaries.get(id)!, summary, liveSince);
    }
    return out;
  }

  private links(recordingId: string, signing?: LinkSigning) {
    return recordingLinks(recordingId, this.signer.base, signing?.query({ kind: 'recording', recordingId }));
  }
}
