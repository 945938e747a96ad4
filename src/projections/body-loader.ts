// Reads the payloads that a headers-only consumer left out, by sequence (direct get), for the kinds
// a projection needs. A message that vanished (deleted) keeps `data` undefined; other errors throw
// so the runner retries the batch.
import type { NatsClient } from '../infrastructure/nats/nats-connection';
import { parseSubject, SubjectKind } from '../infrastructure/nats/subjects';
import { directGet } from '../infrastructure/nats/direct-get';
import { isNoMessage } from '../infrastructure/nats/jetstream-errors';
import type { Projection, ProjectionMessage } from './projection';
import { ArchiveStore } from '../infrastructure/nats/archive-store';
import { parseSealedRef } from '../infrastructure/nats/sealed-record';
import { H } from '../infrastructure/nats/subjects';

const stores = new WeakMap<NatsClient, ArchiveStore>();
/** One archive store (and cache) per connection. */
const archivesOf = (nats: NatsClient): ArchiveStore => {
  let s = stores.get(nats);
  if (!s) stores.set(nats, (s = new ArchiveStore(nats)));
  return s;
};

const CONCURRENCY = 32;

export async function loadBodies(
  nats: NatsClient,
  messages: ProjectionMessage[],
  p: Pick<Projection, 'bodyKinds' | 'needsBody'>,
  archives?: ArchiveStore,
): Promise<void> {
  const need = messages.filter((m) => m.data === undefined && p.bodyKinds.includes(parseSubject(m.subject)?.kind as SubjectKind) && (p.needsBody?.(m) ?? true));
  for (let i = 0; i < need.length; i += CONCURRENCY) {
    await Promise.all(
      need.slice(i, i + CONCURRENCY).map(async (m) => {
        const sealed = parseSealedRef(m.headers[H.sealed]);
        if (sealed) {
          // A sealed batch's payload is in its archive (gone with it: deleted, like a vanished message).
          const a = await (archives ?? archivesOf(nats)).load(sealed.a);
          m.data = a?.payload(m.headers[H.batch] ?? '');
          return;
        }
        try {
          const stored = await directGet(nats, { seq: m.seq });
          if (stored.seq === m.seq && stored.subject === m.subject) m.data = stored.data;
        } catch (e) {
          if (!isNoMessage(e)) throw e;
        }
      }),
    );
  }
}
