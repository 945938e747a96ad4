// How an error crosses from a worker thread (batch-worker.ts, read-worker.ts) to the service's thread:
// an AppError as its code, message and retry hint, a ValidationError with its issues (its 400 names
// the parameter), anything else as a failure of the thread's own, which the service's thread answers
// as any failure of its own (500).
import { AppError, AppErrorCode } from './app-error';
import { ValidationError } from './validation';

export interface ThreadError {
  code?: AppErrorCode;
  message: string;
  retryAfterSeconds?: number;
  issues?: { path: string; message: string }[];
}

/** `e` as it crosses to the service's thread. */
export function toThreadError(e: unknown): ThreadError {
  if (e instanceof AppError) return { code: e.code, message: e.message, retryAfterSeconds: e.retryAfterSeconds };
  if (e instanceof ValidationError) return { message: e.message, issues: e.issues };
  return { message: String((e as Error)?.message ?? e) };
}

/** The error a thread's answer stands for; `thread` names the thread in a failure of its own. */
export function fromThreadError(e: ThreadError, thread: string): Error {
  if (e.code) return new AppError(e.code, e.message, { retryAfterSeconds: e.retryAfterSeconds });
  if (e.issues) return new ValidationError(e.message, e.issues);
  return new Error(`${thread}: ${e.message}`);
}
