// The sealer as the worker and the CLI build it, from configuration.
import type { AppConfig } from '../config/config';
import { ArchiveStore } from '../infrastructure/nats/archive-store';
import type { NatsClient } from '../infrastructure/nats/nats-connection';
import { RecordingSealer, SealerOptions } from '../infrastructure/nats/recording-sealer';
import { SealStates } from '../infrastructure/nats/seal-states';

export function sealerFor(nats: NatsClient, cfg: AppConfig, archives = new ArchiveStore(nats, cfg.STREAM_REPLICAS)): RecordingSealer {
  return new RecordingSealer(nats, archives, new SealStates(nats, cfg.STREAM_REPLICAS), {
    publishTimeoutMs: cfg.INGEST_PUBLISH_TIMEOUT_MS,
    removeDelayMs: cfg.ARCHIVE_REMOVE_DELAY_SECONDS * 1000,
    onStep: crashHook(cfg),
  });
}

/**
 * Crash tests: at the step named the process signals itself, the first time only: SIGKILL dies there
 * as a kill from outside would; SIGSTOP waits there (a test kills another server meanwhile) until
 * SIGCONT, and the seals after it run through. ARCHIVE_HOLD_AFTER stops it (SIGSTOP) at an earlier
 * step first, once.
 */
export function crashHook(
  cfg: Pick<AppConfig, 'ARCHIVE_CRASH_AFTER' | 'ARCHIVE_CRASH_SIGNAL'> & Partial<Pick<AppConfig, 'ARCHIVE_HOLD_AFTER'>>,
  kill = process.kill.bind(process),
): SealerOptions['onStep'] {
  const pending = [
    { at: cfg.ARCHIVE_HOLD_AFTER ?? '', signal: 'SIGSTOP' as const },
    { at: cfg.ARCHIVE_CRASH_AFTER, signal: cfg.ARCHIVE_CRASH_SIGNAL },
  ].filter((p) => p.at);
  if (pending.length === 0) return undefined;
  return (step) => {
    if (pending[0]?.at !== step) return;
    kill(process.pid, pending.shift()!.signal);
  };
}
