// Renders thumbnails in the background once recordings have been idle (docs/console.md): every
// THUMBNAIL_SCAN_SECONDS, the recordings whose last batch was stored THUMBNAIL_IDLE_SECONDS ago or
// more, since the previous pass, and that this instance holds no thumbnail of as new, are queued on
// ThumbnailService's idle queue (after requests, one at a time, only while no other render runs), at
// most THUMBNAIL_PASS_LIMIT per pass, tenants taken in turn. Off with THUMBNAIL_IDLE_SECONDS=0.
// Images stay in this instance's memory: every API instance renders its own.
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { PeriodicPass } from '../../common/periodic-pass';
import { APP_CONFIG, AppConfig } from '../../config/config';
import { IdleRecording, ThumbnailCandidatesRepository } from './thumbnail-candidates.repository';
import { ThumbnailService } from './thumbnail.service';

/** Rows read per pass, to choose from fairly. */
const READ_LIMIT = 2000;
/** The first pass looks this far back beyond the idle time. */
const FIRST_LOOKBACK_MS = 10 * 60_000;

/**
 * The recordings to render: those without a thumbnail rendered since their last batch, oldest idle
 * first within a tenant, tenants taken in turn (in order of their oldest), at most `limit`.
 */
export function chooseIdle(
  found: readonly IdleRecording[],
  renderedAt: (tenantId: string, recordingId: string) => number | undefined,
  limit: number,
): IdleRecording[] {
  const byTenant = new Map<string, IdleRecording[]>();
  for (const c of found) {
    const at = renderedAt(c.tenantId, c.recordingId);
    if (at !== undefined && at >= c.storedAt) continue;
    const list = byTenant.get(c.tenantId) ?? [];
    if (!list.some((x) => x.recordingId === c.recordingId)) list.push(c);
    byTenant.set(c.tenantId, list);
  }
  const lists = [...byTenant.values()].map((l) => [...l].sort((a, b) => a.storedAt - b.storedAt));
  const chosen: IdleRecording[] = [];
  for (let round = 0; chosen.length < limit && lists.some((l) => l.length > round); round++) {
    for (const l of lists) if (round < l.length && chosen.length < limit) chosen.push(l[round]);
  }
  return chosen;
}

@Injectable()
export class ThumbnailSweep implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('thumbnails');
  private readonly periodic = new PeriodicPass(() => this.pass(), this.logger, 'thumbnail sweep failed');
  /** The `until` of the previous pass, epoch ms. */
  private last?: number;
  /** Recordings queued by sweeps (metrics). */
  queued = 0;

  constructor(
    private readonly candidates: ThumbnailCandidatesRepository,
    private readonly thumbnails: ThumbnailService,
    @Inject(APP_CONFIG) private readonly cfg: AppConfig,
  ) {}

  onApplicationBootstrap() {
    if (this.cfg.THUMBNAIL_IDLE_SECONDS === 0) return;
    this.periodic.start(this.cfg.THUMBNAIL_SCAN_SECONDS * 1000);
  }

  onApplicationShutdown(): Promise<void> {
    return this.periodic.shutdown();
  }

  async pass(nowMs = Date.now()): Promise<number> {
    const until = nowMs - this.cfg.THUMBNAIL_IDLE_SECONDS * 1000;
    const since = this.last ?? until - FIRST_LOOKBACK_MS;
    const found = await this.candidates.idle({ since, until, limit: READ_LIMIT });
    this.last = until;
    const chosen = chooseIdle(found, (t, r) => this.thumbnails.renderedAt(t, r), this.cfg.THUMBNAIL_PASS_LIMIT);
    for (const c of chosen) await this.thumbnails.renderWhenIdle(c.tenantId, c.recordingId);
    this.queued += chosen.length;
    return chosen.length;
  }
}
