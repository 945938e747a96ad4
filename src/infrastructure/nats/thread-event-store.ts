// The event store of a worker thread (batch-worker.ts, read-worker.ts): the same JetStreamEventStore
// as the service's thread, on a NATS connection of the thread's own, connected as the thread starts
// (so its first request does not wait for it) and again after a failed attempt.
import { AppError, StoreUnavailable } from '../../common/app-error';
import { JetStreamEventStore } from './event-store';
import { NatsClient, NatsSettings } from './nats-connection';

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
