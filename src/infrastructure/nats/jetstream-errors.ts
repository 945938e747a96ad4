// Every recognition of a NATS / JetStream error lives here: callers ask what an error means for them
// (no such message, consumer gone, store full…), never test codes or messages themselves, so a
// client upgrade (nats v2 → @nats-io/*) changes this file only.
import { NatsError } from 'nats';

const errCode = (e: unknown): number | undefined => (e as { api_error?: { err_code?: number } })?.api_error?.err_code;
const message = (e: unknown): string => String((e as Error)?.message ?? e);

/** Any error of the NATS client or server (as opposed to one of ours). */
export const isNatsError = (e: unknown): boolean => e instanceof NatsError;

/** JetStream error code 10059: stream not found. */
export const isStreamNotFound = (e: unknown): boolean => errCode(e) === 10059 || /stream not found/i.test(message(e));

/** A durable consumer (or its stream) no longer exists: re-ensure it. */
export const isConsumerNotFound = (e: unknown): boolean => errCode(e) === 10014 || isStreamNotFound(e) || /consumer (not found|deleted)/i.test(message(e));

/** A message get or direct get for a sequence or subject that holds no message (API error 10037). */
export const isNoMessage = (e: unknown): boolean => !isStreamNotFound(e) && (errCode(e) === 10037 || /(no message|message not) found/i.test(message(e)));

/**
 * Deleting a message that is no longer there: another deletion of the same recording (a retried
 * DELETE, a second retention sweeper, a read finishing an interrupted deletion) took it first.
 * nats-server 2.9 answers API error 10043 "sequence N not found".
 */
export const isAlreadyDeleted = (e: unknown): boolean => isNoMessage(e) || errCode(e) === 10043 || /sequence \d+ not found/i.test(message(e));

/** The ephemeral consumer of a read is gone (deleted by the server) or does not answer pulls. */
export const isReadConsumerLost = (e: unknown): boolean => /consumer not found|consumer deleted|no responders/i.test(message(e));

/** JetStream's own words when it refused a request (its API error description), if it did. */
export const refusalOf = (e: unknown): string | undefined => (e as { api_error?: { description?: string } })?.api_error?.description;

/** A refused publish because the stream is at its limits (discard: new): nothing clears it until an operator makes room. */
export const isLimitRefusal = (refusal: string | undefined): boolean => refusal !== undefined && /^maximum (bytes|messages) exceeded/i.test(refusal);

/** A key-value create on a key that exists (its last sequence is not the expected 0). */
export const isWrongLastSequence = (e: unknown): boolean => /wrong last sequence/i.test(message(e));
