/**
 * The one notion of time the runtime uses. xstate's `SimulatedClock` (exported by `xstate`)
 * satisfies it, so tests drive the work queue, the controller machine and leader election with
 * the same simulated clock the actors use; production uses `systemClock`.
 */
export interface Clock {
  /** Milliseconds since some fixed origin (the epoch for `systemClock`). */
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(id: unknown): void;
}

/** Wall-clock time and Node's timers; timers are unref'd so they never keep a process alive. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout(fn, ms) {
    const t = setTimeout(fn, ms);
    t.unref();
    return t;
  },
  clearTimeout(id) {
    clearTimeout(id as NodeJS.Timeout);
  },
};
