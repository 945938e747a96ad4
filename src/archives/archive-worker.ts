// Seals idle recordings (docs/archives.md), in the projector role: every ARCHIVE_SCAN_SECONDS the
// recordings idle for ARCHIVE_IDLE_SECONDS (from the projections) are sealed, ARCHIVE_CONCURRENCY at
// a time, off the ingest path. A seal cut short (crash, outage) is finished or redone when the
// recording comes up again; several projector instances only repeat work (a seal that finds the
// recording sealed changes nothing; two at once: one backs off on the expected-sequence check).
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { PeriodicPass, runPool } from '../common/periodic-pass';
import { APP_CONFIG, AppConfig } from '../config/config';
import type { RecordingSealer, SealOutcome } from '../infrastructure/nats/recording-sealer';
import { SealCandidate, SealCandidatesRepository } from './seal-candidates.repository';

export const RECORDING_SEALER = Symbol('RECORDING_SEALER');
/** Candidates taken per pass. */
const PASS_LIMIT = 1000;

@Injectable()
export class ArchiveWorker implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('archives');
  private readonly periodic = new PeriodicPass(() => this.pass(), this.logger, 'seal pass failed');
  /** By recording: the stored-at time at which it was found sealed (skipped until it changes). */
  private readonly settled = new LRUCache<string, number>({ max: 100_000 });
  sealed = 0;
  failed = 0;
  /** Candidates of the last pass not sealed (yet). */
  pending = 0;
  rawBytes = 0;
  archiveBytes = 0;

  constructor(
    @Inject(RECORDING_SEALER) private readonly sealer: RecordingSealer,
    private readonly candidates: SealCandidatesRepository,
    @Inject(APP_CONFIG) private readonly cfg: AppConfig,
  ) {}

  onApplicationBootstrap() {
    if (this.cfg.ARCHIVE_IDLE_SECONDS === 0 || this.cfg.ARCHIVE_CONCURRENCY === 0) return;
    this.periodic.start(this.cfg.ARCHIVE_SCAN_SECONDS * 1000);
  }

  onApplicationShutdown(): Promise<void> {
    return this.periodic.shutdown();
  }

  async pass(): Promise<void> {
    const found = await this.candidates.candidates({ nowMs: Date.now(), idleMs: this.cfg.ARCHIVE_IDLE_SECONDS * 1000, limit: PASS_LIMIT });
    const todo = found.filter((c) => this.settled.get(`${c.tenantId}/${c.recordingId}`) !== c.storedAt);
    this.pending = todo.length;
    const sealEach = async (c: SealCandidate) => {
      const outcome = await this.sealOne(c.tenantId, c.recordingId);
      if (!outcome || outcome.status === 'busy') return;
      this.settled.set(`${c.tenantId}/${c.recordingId}`, c.storedAt);
      this.pending--;
    };
    await runPool(todo, this.cfg.ARCHIVE_CONCURRENCY, sealEach, () => this.periodic.stopping);
  }

  /** Seals one recording; undefined when it failed (logged, counted, tried again next pass). */
  async sealOne(tenantId: string, recordingId: string): Promise<SealOutcome | undefined> {
    try {
      const outcome = await this.sealer.seal(tenantId, recordingId);
      if (outcome.status === 'sealed') {
        this.sealed++;
        this.rawBytes += outcome.rawBytes;
        this.archiveBytes += outcome.archiveBytes;
      }
      return outcome;
    } catch (e) {
      this.failed++;
      this.logger.warn({ msg: 'seal failed', tenantId, recordingId, err: String((e as Error).message) });
      return undefined;
    }
  }
}
