// Ephemeral read consumers placed on the stream leader. nats-server 2.9 places an R1 ephemeral
// consumer (an ordered consumer included) on a random peer of the stream, and a replica can hold a
// different history from the leader: on 2.9.10 a node restarted after a SIGKILL caught up with one
// message missing and every later sequence shifted by one, while reporting itself current (see
// docs/reliability.md, "Stream leader loss"). Reads that must see exactly what was acknowledged
// therefore go through a consumer on the leader: created, checked, and re-created until it lands
// there. Single servers (no cluster info) accept the first consumer.
import { AckPolicy, Consumer, DeliverPolicy, nanos } from 'nats';
import type { NatsClient } from './nats-connection';
import { EVENTS_STREAM } from './subjects';

export interface LeaderConsumerOptions {
  filterSubject: string;
  headersOnly: boolean;
  /** First stream sequence to deliver (0 or less: from the start). */
  startSeq: number;
  /** The server deletes the consumer once no pull has waited this long (default 60 s). */
  inactiveThresholdMs?: number;
}

/** Placement attempts; each lands on the leader with probability 1/replicas (3 at most here). */
const MAX_ATTEMPTS = 40;

export class ReplicaPlacementError extends Error {}

/** Creates an AckNone ephemeral consumer on the stream leader; the caller deletes it. */
export async function leaderConsumer(nats: NatsClient, o: LeaderConsumerOptions): Promise<Consumer> {
  const config = {
    filter_subject: o.filterSubject,
    headers_only: o.headersOnly,
    ack_policy: AckPolicy.None,
    mem_storage: true,
    num_replicas: 1,
    inactive_threshold: nanos(o.inactiveThresholdMs ?? 60_000),
    ...(o.startSeq > 0 ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: o.startSeq } : { deliver_policy: DeliverPolicy.All }),
  };
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const [si, ci] = await Promise.all([nats.jsm.streams.info(EVENTS_STREAM), nats.jsm.consumers.add(EVENTS_STREAM, config)]);
    const leader = si.cluster?.leader;
    const placed = ci.cluster?.leader;
    if (!leader || !placed || placed === leader) return nats.js.consumers.get(EVENTS_STREAM, ci.name);
    await nats.jsm.consumers.delete(EVENTS_STREAM, ci.name).catch(() => undefined);
  }
  throw new ReplicaPlacementError(`no read consumer could be placed on the leader of ${EVENTS_STREAM}`);
}
