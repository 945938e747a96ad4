// The durable consumer of a projection. Explicit ack; a message is redelivered at most MAX_DELIVER
// times (the runner stops fetching while ClickHouse is unreachable, so outages do not use them up);
// ACK_WAIT is kept short because the runner signals `working` during slow writes.
import { AckPolicy, ConsumerConfig, DeliverPolicy, nanos, ReplayPolicy } from 'nats';
import type { Projection } from './projection';

export const MAX_DELIVER = 20;
export const ACK_WAIT_MS = 30_000;
/** Room for several workers' batches in flight (PROJECTOR_BATCH is at most 10 000). */
export const MAX_ACK_PENDING = 20_000;

export const consumerName = (p: Pick<Projection, 'name'>) => `projector-${p.name}`;

export function projectorConsumerConfig(p: Projection): Partial<ConsumerConfig> & { durable_name: string } {
  return {
    durable_name: consumerName(p),
    description: `Tapedeck projection ${p.name}`,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    replay_policy: ReplayPolicy.Instant,
    filter_subject: p.filterSubject,
    headers_only: true,
    max_deliver: MAX_DELIVER,
    ack_wait: nanos(ACK_WAIT_MS),
    max_ack_pending: MAX_ACK_PENDING,
  };
}
