/**
 * What a reconcile returns, as named outcomes rather than booleans or bare numbers:
 *
 * - `done()`: the key is in its desired state; its back-off is forgotten.
 * - `requeueAfter(ms)`: reconcile again after `ms` (e.g. to poll something outside the API); the
 *   back-off is forgotten, as this is not a failure.
 * - `requeue()`: reconcile again after the rate limiter's back-off (a soft failure).
 *
 * A reconcile that throws is retried with back-off, except for a `TerminalError`, which is logged
 * and not retried (the key is forgotten until its object changes again).
 */

export type ReconcileOutcome =
  | { readonly kind: 'done' }
  | { readonly kind: 'requeue' }
  | { readonly kind: 'requeueAfter'; readonly delayMs: number };

const DONE: ReconcileOutcome = Object.freeze({ kind: 'done' });
const REQUEUE: ReconcileOutcome = Object.freeze({ kind: 'requeue' });

export function done(): ReconcileOutcome {
  return DONE;
}

export function requeue(): ReconcileOutcome {
  return REQUEUE;
}

export function requeueAfter(ms: number): ReconcileOutcome {
  if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`requeueAfter: delay must be a finite number >= 0, got ${ms}`);
  return { kind: 'requeueAfter', delayMs: ms };
}

/** Thrown by a reconcile for a failure retrying cannot fix (e.g. an invalid spec). */
export class TerminalError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TerminalError';
  }
}

/** How one reconcile of a key ended, as the worker reports it (outcome, or how it failed). */
export type ReconcileResult =
  | ReconcileOutcome
  | { readonly kind: 'failed'; readonly error: unknown }
  | { readonly kind: 'terminal'; readonly error: TerminalError };
