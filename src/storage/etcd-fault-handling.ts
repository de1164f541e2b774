/**
 * How the etcd client reacts to failures (its cockatiel `faultHandling` policies), chosen so that:
 *
 * - a cancelled call never counts as a failure: closing a watch cancels its gRPC stream, and with
 *   the client's defaults (any "recoverable" error, cancellations included, trips a breaker after
 *   3 in a row for 5 s) ordinary watch churn made every storage call fail for 5 s;
 * - a real outage (etcd unavailable, a deadline passing) is retried with exponential back-off a few
 *   times, then opens the per-host breaker so callers fail fast (503) until a probe succeeds;
 * - but a write (a transaction) is never retried: one that failed may have been committed (etcd
 *   died after committing it, before answering), and the retry would then answer for a state the
 *   write itself made: 404 to a delete that deleted, 409 to a create that created (seen in the
 *   crash-consistency test with etcd killed during writes). Its caller gets 503: outcome unknown,
 *   read and retry, as a client does with any unanswered write;
 * - the errors that reach the API are StorageUnavailableError, which the API answers with 503
 *   (Retry-After) or 504 for a deadline, never 500 (see mapStorageError in ../apiserver).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { circuitBreaker, ConsecutiveBreaker, ExponentialBackoff, handleWhen, type IPolicy, retry } from 'cockatiel';
import { GRPCCancelledError, GRPCDeadlineExceededError, type IOptions, isRecoverableError } from 'etcd3';

/** Consecutive real failures after which a host's breaker opens. */
export const BREAKER_CONSECUTIVE_FAILURES = 5;
/** How long an open breaker fails calls fast before letting one probe through. */
export const BREAKER_HALF_OPEN_AFTER_MS = 1000;
/** Retries per call after the first attempt while etcd is unavailable (cockatiel's `maxAttempts` counts retries). */
export const RETRY_MAX_ATTEMPTS = 3;

/** A failure that says etcd (or the path to it) is unavailable; a cancellation says nothing about it. */
export function isOutage(err: unknown): boolean {
  if (!(err instanceof Error) || err instanceof GRPCCancelledError) return false;
  try {
    return isRecoverableError(err);
  } catch {
    return false;
  }
}

/** True when the failure was a deadline passing (the API answers 504 rather than 503). */
export function isDeadline(err: unknown): boolean {
  return err instanceof GRPCDeadlineExceededError;
}

const inWrite = new AsyncLocalStorage<true>();

/**
 * Runs `fn`, whose etcd calls are not retried on an outage (the retry policy below runs in the
 * caller's async context, so it sees this mark): for writes, whose failure does not say whether
 * etcd committed them.
 */
export function withoutRetry<T>(fn: () => Promise<T>): Promise<T> {
  return inWrite.run(true, fn);
}

/** An outage worth retrying the call for: any outage, outside a write. */
export function isRetriableOutage(err: unknown): boolean {
  return isOutage(err) && inWrite.getStore() === undefined;
}

/** The etcd3 client's `faultHandling` option. */
export function etcdFaultHandling(): NonNullable<IOptions['faultHandling']> {
  const outage = handleWhen(isOutage);
  const host = (): IPolicy =>
    circuitBreaker(outage, { halfOpenAfter: BREAKER_HALF_OPEN_AFTER_MS, breaker: new ConsecutiveBreaker(BREAKER_CONSECUTIVE_FAILURES) });
  const global = retry(handleWhen(isRetriableOutage), { maxAttempts: RETRY_MAX_ATTEMPTS, backoff: new ExponentialBackoff({ initialDelay: 50, maxDelay: 500 }) });
  return { host, global };
}
