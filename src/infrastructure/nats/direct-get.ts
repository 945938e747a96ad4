import type { StoredMsg } from 'nats';
import type { NatsClient } from './nats-connection';
import { EVENTS_STREAM } from './subjects';

type DirectQuery = { seq: number; next_by_subj?: string };
type WithDirect = { direct: { getMessage(stream: string, q: DirectQuery): Promise<StoredMsg> } };

/**
 * One message of the event stream by sequence (or the next one on a subject from there), through
 * direct get (the stream has allow_direct). The nats v2 typings omit `jsm.direct`; it exists.
 */
export function directGet(nats: NatsClient, q: DirectQuery): Promise<StoredMsg> {
  return (nats.jsm as unknown as WithDirect).direct.getMessage(EVENTS_STREAM, q);
}
