// The sealer as the worker and the CLI build it, from configuration.
import type { AppConfig } from '../config/config';
import { ArchiveStore } from '../infrastructure/nats/archive-store';
import type { NatsClient } from '../infrastructure/nats/nats-connection';
import { RecordingSealer } from '../infrastructure/nats/recording-sealer';
import { SealStates } from '../infrastructure/nats/seal-states';

export function sealerFor(nats: NatsClient, cfg: AppConfig, archives = new ArchiveStore(nats, cfg.STREAM_REPLICAS)): RecordingSealer {
  const crashAfter = cfg.ARCHIVE_CRASH_AFTER;
  return new RecordingSealer(nats, archives, new SealStates(nats, cfg.STREAM_REPLICAS), {
    publishTimeoutMs: cfg.INGEST_PUBLISH_TIMEOUT_MS,
    removeDelayMs: cfg.ARCHIVE_REMOVE_DELAY_SECONDS * 1000,
    // Crash tests: die at once at the step named, as a SIGKILL from outside would.
    onStep: crashAfter ? (step) => void (step === crashAfter && process.kill(process.pid, 'SIGKILL')) : undefined,
  });
}
