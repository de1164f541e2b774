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
