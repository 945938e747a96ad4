// Recording archives (docs/archives.md) in the projector role: the sealer, the worker that seals idle
// recordings, and their metrics.
import { Module, OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/config';
import { EVENT_STORE } from '../domain/event-store';
import { JetStreamEventStore } from '../infrastructure/nats/event-store';
import { NatsClient } from '../infrastructure/nats/nats-connection';
import { MetricsService } from '../metrics/metrics.service';
import { ArchiveWorker, RECORDING_SEALER } from './archive-worker';
import { sealerFor } from './sealer-factory';
import { SealCandidatesRepository } from './seal-candidates.repository';

@Module({
  providers: [
    {
      provide: RECORDING_SEALER,
      useFactory: (nats: NatsClient, store: JetStreamEventStore, cfg: AppConfig) => sealerFor(nats, cfg, store.archives),
      inject: [NatsClient, EVENT_STORE, APP_CONFIG],
    },
    SealCandidatesRepository,
    ArchiveWorker,
  ],
  exports: [ArchiveWorker],
})
export class ArchivesModule implements OnModuleInit {
  constructor(
    private readonly worker: ArchiveWorker,
    private readonly metrics: MetricsService,
  ) {}

  onModuleInit(): void {
    const w = this.worker;
    this.metrics.counter('tapedeck_archives_sealed_total', 'Recordings sealed into an archive by this process', () => w.sealed);
    this.metrics.counter('tapedeck_archives_failed_total', 'Seals that failed (tried again on the next pass)', () => w.failed);
    this.metrics.gauge('tapedeck_archives_pending', 'Idle recordings of the last pass not sealed yet', () => w.pending);
    this.metrics.counter('tapedeck_archives_raw_bytes_total', 'Event payload bytes of the recordings sealed (before)', () => w.rawBytes);
    this.metrics.counter('tapedeck_archives_archive_bytes_total', 'Archive bytes written for them (after)', () => w.archiveBytes);
  }
}
