// Classifies JetStream API errors by what the projector does about them.
const errCode = (e: unknown): number | undefined => (e as { api_error?: { err_code?: number } })?.api_error?.err_code;
const message = (e: unknown): string => String((e as Error)?.message ?? e);

/** JetStream error code 10059: stream not found. */
export const isStreamNotFound = (e: unknown) => errCode(e) === 10059 || /stream not found/i.test(message(e));

/** The consumer (or stream) no longer exists: re-ensure it. */
export const isConsumerNotFound = (e: unknown) => errCode(e) === 10014 || isStreamNotFound(e) || /consumer (not found|deleted)/i.test(message(e));

/** A direct get for a sequence that holds no message. */
export const isNoMessage = (e: unknown) =>
  !isStreamNotFound(e) && (errCode(e) === 10037 || /(no message|message not) found/i.test(message(e)));
