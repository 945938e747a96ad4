import { ErrorCode, NatsError } from 'nats';
import { AppError } from '../../common/app-error';
import { JetStreamEventStore } from './event-store';
import type { NatsClient } from './nats-connection';

/** Connected as far as the client knows, but JetStream API requests time out (a stalled server). */
function stalledNats(): NatsClient {
  const timeout = () => Promise.reject(NatsError.errorForCode(ErrorCode.Timeout));
  return { connected: true, jsm: { streams: { info: timeout } } } as unknown as NatsClient;
}

describe('JetStreamEventStore with a stalled server', () => {
  // A read first asks the stream how many messages the recording has; that request timing out was a
  // 500 (an unhandled NatsError) on GET …/events and on replays, where a retryable 503 is documented.
  it('answers a read whose message count times out as unavailable (503), not as an unhandled error', async () => {
    const store = new JetStreamEventStore(stalledNats(), 1000);
    const read = async () => {
      for await (const event of store.read('t1', '0b0e7f2c-1d2e-4f60-8a9b-0c1d2e3f4a5b')) void event;
    };
    await expect(read()).rejects.toMatchObject({ code: 'unavailable', retryAfterSeconds: 1 });
    await expect(read()).rejects.toBeInstanceOf(AppError);
  });
});
