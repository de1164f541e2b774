/** Building `ApiError`s for failures the server did not describe itself (a broken connection, a non-Status body). */
import type { Status, StatusReason } from '../api/status.js';
import { ApiError } from './types.js';

const REASONS: Record<number, StatusReason> = {
  400: 'BadRequest', 401: 'Unauthorized', 403: 'Forbidden', 404: 'NotFound', 405: 'MethodNotAllowed', 406: 'NotAcceptable',
  409: 'Conflict', 410: 'Gone', 413: 'RequestEntityTooLarge', 415: 'UnsupportedMediaType', 422: 'Invalid',
  429: 'TooManyRequests', 503: 'ServiceUnavailable', 504: 'Timeout',
};

/** A failure `Status` with the reason the code usually carries. */
export function statusFor(code: number, message: string): Status {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: REASONS[code] ?? 'InternalError', code };
}

export function isStatus(v: unknown): v is Status {
  return typeof v === 'object' && v !== null && (v as { kind?: unknown }).kind === 'Status';
}

/** An ApiError with `code` and a synthesised Status; `cause` keeps the original error. */
export function apiError(code: number, message: string, cause?: unknown): ApiError {
  const err = new ApiError(code, statusFor(code, message));
  if (cause !== undefined) err.cause = cause;
  return err;
}

/** `err` itself when it is an ApiError, else a 500 wrapping it. */
export function toApiError(err: unknown): ApiError {
  return err instanceof ApiError ? err : apiError(500, (err as Error)?.message ?? String(err), err);
}

/** Whether `err` is the 410 a watch or a continue token gets when its resource version is too old. */
export function isGone(err: unknown): boolean {
  return err instanceof ApiError && err.code === 410;
}

// Predicates for the outcomes a controller reacts to, so nobody compares codes by hand. A 409 is
// one of two: a create of a name that exists, or a write based on a version that changed.

/** 404: the object (or its namespace, or the resource) is not there. */
export function isNotFound(err: unknown): boolean {
  return err instanceof ApiError && err.code === 404;
}

/** 409 AlreadyExists: a create of a name that is taken. */
export function isAlreadyExists(err: unknown): boolean {
  return err instanceof ApiError && err.code === 409 && err.reason === 'AlreadyExists';
}

/** 409 Conflict: the object changed since the version the write was based on (read it again and retry). */
export function isConflict(err: unknown): boolean {
  return err instanceof ApiError && err.code === 409 && err.reason !== 'AlreadyExists';
}

/** 422 Invalid: the object breaks a validation rule (the Status lists the fields). */
export function isInvalid(err: unknown): boolean {
  return err instanceof ApiError && err.code === 422;
}

/** 403 Forbidden: the caller may not do this. */
export function isForbidden(err: unknown): boolean {
  return err instanceof ApiError && err.code === 403;
}

/** 429 or 503/504: the server asks to come back later (`retryAfterSeconds` when it said when). */
export function isRetryLater(err: unknown): boolean {
  return err instanceof ApiError && (err.code === 429 || err.code === 503 || err.code === 504);
}
