// Reads the payloads that a headers-only consumer left out, by sequence (direct get), for the kinds
// a projection needs. A message that vanished (deleted) keeps `data` undefined; other errors throw
// so the runner retries the batch.
import type { NatsClient } from '../infrastructure/nats/nats-connection';
import { parseSubject, SubjectKind } from '../infrastructure/nats/subjects';
import { directGet } from '../infrastructure/nats/direct-get';
import { isNoMessage } from '../infrastructure/nats/jetstream-errors';
import type { ProjectionMessage } from './projection';

const CONCURRENCY = 32;

export async function loadBodies(nats: NatsClient, messages: ProjectionMessage[], kinds: readonly SubjectKind[]): Promise<void> {
  const need = messages.filter((m) => m.data === undefined && kinds.includes(parseSubject(m.subject)?.kind as SubjectKind));
  for (let i = 0; i < need.length; i += CONCURRENCY) {
    await Promise.all(
      need.slice(i, i + CONCURRENCY).map(async (m) => {
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
