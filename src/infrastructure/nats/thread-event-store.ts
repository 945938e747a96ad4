// The event store of a worker thread (batch-worker.ts, read-worker.ts): the same JetStreamEventStore
// as the service's thread, on a NATS connection of the thread's own, connected as the thread starts
// (so its first request does not wait for it) and again after a failed attempt. And what such a
// thread is given to make it (its workerData).
import { AppError, StoreUnavailable } from '../../common/app-error';
import type { LogFormat } from '../../common/logger';
import type { AppConfig } from '../../config/config';
import { JetStreamEventStore } from './event-store';
import { NatsClient, NatsSettings } from './nats-connection';

/** What a worker thread with an event store needs (given once, as its workerData). */
export interface ThreadSettings {
  /** The nice value the thread lowers itself to. */
  nice: number;
  nats: NatsSettings;
  publishTimeoutMs: number;
  log: { level: AppConfig['LOG_LEVEL']; format: LogFormat };
}

/** A thread's settings from the service's configuration, at `nice`. */
export function threadSettings(cfg: AppConfig, nice: number): ThreadSettings {
  return {
    nice,
    nats: { NATS_URL: cfg.NATS_URL, NATS_USER: cfg.NATS_USER, NATS_PASSWORD: cfg.NATS_PASSWORD },
    publishTimeoutMs: cfg.INGEST_PUBLISH_TIMEOUT_MS,
    log: { level: cfg.LOG_LEVEL, format: cfg.LOG_FORMAT },
  };
}

/** Starts connecting now; the function returned resolves with the store, or a 503 when connecting takes longer than a publish may. */
export function threadEventStore(nats: NatsSettings, name: string, publishTimeoutMs: number): () => Promise<JetStreamEventStore> {
  let store: Promise<JetStreamEventStore> | undefined;
  const storeOf = () =>
    (store ??= NatsClient.connect(nats, name).then(
      (client) => new JetStreamEventStore(client, publishTimeoutMs),
      (e: unknown) => {
        store = undefined; // the next request tries again
        throw e;
      },
    ));
  void storeOf().catch(() => undefined);
  return async () => {
    const unreachable = () => new StoreUnavailable('Event store (NATS JetStream) is unreachable; retry later');
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(unreachable()), publishTimeoutMs);
    });
    try {
      return await Promise.race([storeOf(), late]);
    } catch (e) {
      throw e instanceof AppError ? e : unreachable();
    } finally {
      clearTimeout(timer);
    }
  };
}
