// One error type for the whole application. Each feature throws AppError with a code; the global
// filter maps codes to statuses with an exhaustive switch, so a new code cannot be forgotten.
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
  | 'upstream_failed'
  | 'unavailable';

export class AppError extends Error {
  constructor(
    readonly code: AppErrorCode,
    message: string,
    /** Extra response headers, e.g. Retry-After. */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
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

export const badRequest = (message: string) => new AppError('bad_request', message);
export const notFound = (message: string) => new AppError('not_found', message);
