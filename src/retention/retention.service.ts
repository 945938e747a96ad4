// Per-tenant retention: every sweep, recordings of a tenant with `retentionDays` that the service
// last stored anything for (an event batch or metadata, by JetStream's time of storing it) longer
// ago than that are deleted exactly as DELETE /recordings/{id} deletes them (a marker the
// projectors apply, then the recording's messages below it). Server time, not the events' own
// timestamps: a browser whose clock is days behind must not lose its recording at the next sweep,
// one days ahead must not keep it past the period, and a recording holding only metadata (which
// has no event time) is swept too. It is also the clock of the stream's own age limit.
// With a stream age limit (STREAM_MAX_AGE_DAYS), every tenant's recordings last stored longer ago
// than that limit less a margin (globalRetentionMs) are deleted the same way, before the stream
// expires their messages on its own: a sealed recording's records, stored at seal time, would expire
// together and leave its archive (an Object Store object, not aged with the stream) behind.
// Runs in the projector role; several workers sweeping at once only repeat idempotent deletions
// (a message another worker deleted first counts as deleted).
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { TenantRegistry } from '../auth/tenant-registry';
import { PeriodicPass } from '../common/periodic-pass';
import { APP_CONFIG, AppConfig, streamMaxAgeMs } from '../config/config';
import { BootService } from '../infrastructure/boot.service';
import { ClickHouse } from '../infrastructure/clickhouse/clickhouse-client';
import { sql } from '../infrastructure/clickhouse/sql';
import { RecordingDeletion } from '../recordings/recording-deletion.service';

const DAY_MS = 86_400_000;
const BATCH = 500;
/**
 * The first sweep runs this long after start (or after one interval, if shorter), then every
 * interval: waiting a whole interval first meant a projector restarted more often than hourly (a
 * rollout a day, a crash loop) never swept at all.
 */
export const FIRST_SWEEP_DELAY_MS = 60_000;

/**
 * The retention every tenant gets from the stream's age limit (0: none): the limit less two sweep
 * intervals (at most half the limit), so a recording is deleted whole, archive included, at a sweep
 * before the stream would expire the records its seal stored, which are never older than its last
 * write. Without sweeps (RETENTION_SWEEP_SECONDS=0) nothing is deleted this way.
 */
export function globalRetentionMs(cfg: Pick<AppConfig, 'STREAM_MAX_AGE_DAYS' | 'STREAM_MAX_AGE_SECONDS' | 'RETENTION_SWEEP_SECONDS'>): number {
  const maxAge = streamMaxAgeMs(cfg);
  if (maxAge <= 0 || cfg.RETENTION_SWEEP_SECONDS <= 0) return 0;
  return maxAge - Math.min(maxAge / 2, 2 * cfg.RETENTION_SWEEP_SECONDS * 1000);
}

@Injectable()
export class RetentionService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('retention');
  private readonly periodic = new PeriodicPass(() => this.sweep(), this.logger, 'retention sweep failed');
  /**
   * Deletions that failed part way (the marker stored, some messages not deleted). Once the marker
   * is projected the recording is no longer found expired in ClickHouse, so they are retried from
   * here at the next sweep.
   */
  private readonly unfinished = new Map<string, { tenantId: string; recordingId: string }>();
  deleted = 0;

  constructor(
    private readonly registry: TenantRegistry,
    private readonly ch: ClickHouse,
    private readonly deletion: RecordingDeletion,
    private readonly boot: BootService,
    @Inject(APP_CONFIG) private readonly cfg: AppConfig,
  ) {}

  onApplicationBootstrap() {
    if (this.cfg.RETENTION_SWEEP_SECONDS <= 0) return;
    const intervalMs = this.cfg.RETENTION_SWEEP_SECONDS * 1000;
    this.periodic.start(intervalMs, Math.min(intervalMs, FIRST_SWEEP_DELAY_MS));
  }

  onApplicationShutdown(): Promise<void> {
    return this.periodic.shutdown();
  }

  /** Up to BATCH recordings of a tenant, in id order after `after`, last written (events or metadata) before the cutoff (epoch ms). */
  async expired(tenantId: string, cutoffMs: number, after = ''): Promise<string[]> {
    const rows = await this.ch.rows<{ recording_id: string }>(
      sql`SELECT recording_id FROM (
            SELECT recording_id, max(ingested_at) AS written FROM recording_batches WHERE tenant_id = ${tenantId} AND recording_id > ${after} GROUP BY recording_id
            UNION ALL
            SELECT recording_id, max(written_at) AS written FROM recording_metadata WHERE tenant_id = ${tenantId} AND recording_id > ${after} GROUP BY recording_id
          ) GROUP BY recording_id HAVING max(written) < ${cutoffMs} ORDER BY recording_id LIMIT ${BATCH}`,
    );
    return rows.map((r) => r.recording_id);
  }

  /**
   * One pass over every tenant with a retention period; returns the recordings deleted. A recording
   * (or a tenant's listing) that fails is logged and left for the next sweep; the pass goes on, so one
   * unreachable moment does not keep every other tenant's expired recordings.
   */
  async sweep(nowMs = Date.now()): Promise<number> {
    if (!this.boot.migrated) return 0;
    let count = 0;
    let failed = 0;
    let tenants = 0;
    const tally = (ok: boolean) => (ok ? count++ : failed++);
    for (const { tenantId, recordingId } of [...this.unfinished.values()]) tally((await this.delete(tenantId, recordingId, { ifStored: false })) === 'deleted');
    const global = globalRetentionMs(this.cfg);
    for (const t of this.registry.listTenants()) {
      const own = t.retentionDays && t.retentionDays > 0 ? t.retentionDays * DAY_MS : 0;
      const periodMs = own && global ? Math.min(own, global) : own || global;
      if (!periodMs || t.status === 'deleting') continue;
      tenants++;
      // Every expired recording, a page at a time: one page per sweep capped retention at BATCH
      // recordings per tenant per sweep.
      const cutoff = nowMs - periodMs;
      let page: string[];
      let after = '';
      try {
        do {
          page = await this.expired(t.id, cutoff, after);
          for (const id of page) {
            const outcome = await this.delete(t.id, id, { ifStored: true });
            if (outcome !== 'absent') tally(outcome === 'deleted'); // absent: deleted already; its rows go when the marker is projected
          }
          after = page[page.length - 1];
        } while (page.length === BATCH);
      } catch (e) {
        failed++;
        this.logger.warn({ msg: "retention could not list a tenant's expired recordings; next sweep", tenantId: t.id, err: String((e as Error).message) });
      }
    }
    // Archives of deleted recordings that no deletion could find (a seal that died before naming its
    // archive anywhere while the recording was deleted): every sweep, whatever the tenants' retention.
    let archives = 0;
    try {
      archives = await this.deletion.sweepArchives();
    } catch (e) {
      failed++;
      this.logger.warn({ msg: 'retention could not sweep the archives of deleted recordings; next sweep', err: String((e as Error).message) });
    }
    // One line per sweep (hourly by default): operators see that retention runs, not only when it deletes.
    this.logger.log({ msg: 'retention sweep', tenants, deleted: count, ...(archives ? { archivesRemoved: archives } : {}), ...(failed ? { failed } : {}) });
    this.deleted += count;
    return count;
  }

  /** Deletes one recording (see RecordingDeletion.expire); 'failed' is logged and retried at the next sweep. */
  private async delete(tenantId: string, recordingId: string, opts: { ifStored: boolean }): Promise<'deleted' | 'absent' | 'failed'> {
    const key = `${tenantId}/${recordingId}`;
    // A tenant being deleted (or gone) gets no new deletion markers: the tenant deletion removes everything.
    const tenant = this.registry.tenant(tenantId);
    if (!tenant || tenant.status === 'deleting') {
      this.unfinished.delete(key);
      return 'absent';
    }
    try {
      if (!(await this.deletion.expire(tenantId, recordingId, opts))) return 'absent';
      this.unfinished.delete(key);
      return 'deleted';
    } catch (e) {
      this.unfinished.set(key, { tenantId, recordingId });
      this.logger.warn({ msg: 'retention could not delete a recording; next sweep', tenantId, recordingId, err: String((e as Error).message) });
      return 'failed';
    }
  }
}
