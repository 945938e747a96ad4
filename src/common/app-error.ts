// One error family for the whole application. Features and adapters throw an AppError (or one of the
// typed subclasses below) with a code and, for a retryable failure, a retry hint in seconds; only the
// global error filter turns them into HTTP (status by an exhaustive switch, Retry-After from the hint).
export type AppErrorCode =
  | 'bad_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'not_acceptable'
  | 'conflict'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'unprocessable'
  | 'rate_limited'
  | 'quota_exceeded'
  | 'upstream_failed'
  | 'unavailable';

export interface AppErrorOptions {
  /** When a retry may succeed, in seconds (answered as Retry-After). */
  retryAfterSeconds?: number;
}

export class AppError extends Error {
  readonly retryAfterSeconds?: number;

  constructor(
    readonly code: AppErrorCode,
    message: string,
    options: AppErrorOptions = {},
  ) {
    super(message);
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

/** A store (JetStream, ClickHouse) or a shared resource (the renderer) cannot serve now; a retry may. */
export class StoreUnavailable extends AppError {
  constructor(message: string, retryAfterSeconds = 1) {
    super('unavailable', message, { retryAfterSeconds });
  }
}

/** The event store refused a write for lack of room: nothing clears it until an operator makes room. */
export class StoreFull extends AppError {
  constructor(message: string, retryAfterSeconds = 30) {
    super('unavailable', message, { retryAfterSeconds });
  }
}

/** A caller went over its rate; it may try again after `retryAfterSeconds`. */
export class RateLimited extends AppError {
  constructor(message: string, retryAfterSeconds: number) {
    super('rate_limited', message, { retryAfterSeconds: Math.max(1, Math.ceil(retryAfterSeconds)) });
  }
}

/**
 * A tenant's storage quota is used up: nothing of the write was stored. Waiting alone does not help
 * (deleting recordings, retention or a higher quota do); the hint says when usage is next re-read.
 */
export class QuotaExceeded extends AppError {
  constructor(message: string, retryAfterSeconds: number) {
    super('quota_exceeded', message, { retryAfterSeconds: Math.max(1, Math.ceil(retryAfterSeconds)) });
  }
}

export function statusOf(code: AppErrorCode): number {
  switch (code) {
    case 'bad_request':
      return 400;
    case 'unauthorized':
      return 401;
    case 'forbidden':
      return 403;
    case 'not_found':
      return 404;
    case 'not_acceptable':
      return 406;
    case 'conflict':
      return 409;
    case 'payload_too_large':
      return 413;
    case 'unsupported_media_type':
      return 415;
    case 'unprocessable':
      return 422;
    case 'rate_limited':
      return 429;
    case 'quota_exceeded':
      return 507;
    case 'upstream_failed':
      return 502;
    case 'unavailable':
      return 503;
    default: {
      const never: never = code;
      return never;
    }
  }
}

/** The response headers an AppError asks for: Retry-After from its hint, the auth scheme with a 401, Vary with a 406. */
export function headersOf(err: AppError): Record<string, string> {
  const headers: Record<string, string> = {};
  // A 401 names the scheme it wants (RFC 9110 11.6.1): keys go in Authorization: Bearer.
  if (err.code === 'unauthorized') headers['www-authenticate'] = 'Bearer realm="tapedeck"';
  // A 406 depends on what the request accepted.
  if (err.code === 'not_acceptable') headers.Vary = 'Accept';
  if (err.retryAfterSeconds !== undefined) headers['Retry-After'] = String(err.retryAfterSeconds);
  return headers;
}

export const badRequest = (message: string) => new AppError('bad_request', message);
export const notFound = (message: string) => new AppError('not_found', message);
