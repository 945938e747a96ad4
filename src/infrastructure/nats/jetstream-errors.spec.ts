import { ErrorCode, NatsError } from 'nats';
import {
  isAlreadyDeleted,
  isConsumerNotFound,
  isLimitRefusal,
  isNatsError,
  isNoMessage,
  isReadConsumerLost,
  isStreamNotFound,
  isWrongLastSequence,
  refusalOf,
} from './jetstream-errors';

/** A JetStream API error as the nats v2 client raises it: the message is the server's description. */
function apiError(err_code: number, description: string): NatsError {
  const e = new NatsError(description, ErrorCode.JetStreamInvalidAck);
  e.api_error = { code: 404, err_code, description };
  return e;
}

describe('JetStream error recognition', () => {
  it('tells a missing message from a missing stream, by code or by message', () => {
    expect(isNoMessage(apiError(10037, 'no message found'))).toBe(true);
    expect(isNoMessage(new Error('message not found'))).toBe(true);
    expect(isNoMessage(apiError(10059, 'stream not found'))).toBe(false);
    expect(isNoMessage(NatsError.errorForCode(ErrorCode.Timeout))).toBe(false);
    expect(isStreamNotFound(apiError(10059, 'stream not found'))).toBe(true);
    expect(isStreamNotFound(new Error('stream not found'))).toBe(true);
    expect(isStreamNotFound(apiError(10037, 'no message found'))).toBe(false);
  });

  it('counts a message another deletion took first as already deleted (nats-server 2.9: 10043)', () => {
    expect(isAlreadyDeleted(apiError(10037, 'no message found'))).toBe(true);
    expect(isAlreadyDeleted(apiError(10043, 'sequence 12 not found'))).toBe(true);
    expect(isAlreadyDeleted(new Error('sequence 7 not found'))).toBe(true);
    expect(isAlreadyDeleted(NatsError.errorForCode(ErrorCode.Timeout))).toBe(false);
  });

  it('sees a durable consumer gone (or its stream) for projectors, and a read consumer lost or silent for reads', () => {
    expect(isConsumerNotFound(apiError(10014, 'consumer not found'))).toBe(true);
    expect(isConsumerNotFound(new Error('consumer deleted'))).toBe(true);
    expect(isConsumerNotFound(apiError(10059, 'stream not found'))).toBe(true);
    expect(isConsumerNotFound(new Error('no responders'))).toBe(false);
    expect(isReadConsumerLost(new Error('consumer not found'))).toBe(true);
    expect(isReadConsumerLost(new Error('consumer deleted'))).toBe(true);
    expect(isReadConsumerLost(new NatsError('no responders', ErrorCode.NoResponders))).toBe(true); // as consume() raises it
    expect(isReadConsumerLost(NatsError.errorForCode(ErrorCode.Timeout))).toBe(false);
  });

  it('reads a refused publish and recognises a full stream', () => {
    const full = apiError(10077, 'maximum bytes exceeded');
    expect(refusalOf(full)).toBe('maximum bytes exceeded');
    expect(isLimitRefusal(refusalOf(full))).toBe(true);
    expect(isLimitRefusal('maximum messages exceeded')).toBe(true);
    expect(isLimitRefusal('maximum payload exceeded for this message')).toBe(false);
    expect(refusalOf(NatsError.errorForCode(ErrorCode.Timeout))).toBeUndefined();
    expect(isLimitRefusal(undefined)).toBe(false);
  });

  it('recognises a taken key and errors of the NATS client', () => {
    expect(isWrongLastSequence(new Error('wrong last sequence: 4'))).toBe(true);
    expect(isWrongLastSequence(new Error('timeout'))).toBe(false);
    expect(isNatsError(NatsError.errorForCode(ErrorCode.Timeout))).toBe(true);
    expect(isNatsError(new Error('stream subjects overlap'))).toBe(false);
  });
});
