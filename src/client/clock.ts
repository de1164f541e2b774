/**
 * The notion of time the client layer uses (rate limiting, retry back-off, informer back-off).
 * xstate's `SimulatedClock` satisfies it, so tests drive every delay of src/client with the same
 * simulated clock the runtime's actors use; production uses `systemClock`. The shape is the same
 * as src/runtime's `Clock` (the client layer sits below the runtime and cannot import it).
 */
export interface Clock {
  /** Milliseconds since some fixed origin (the epoch for `systemClock`). */
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(id: unknown): void;
}

/** Wall-clock time and Node's timers; timers are unref'd so a pending back-off never keeps a process alive. */
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

/** Thrown by `sleep` when its signal aborts. */
export class SleepAborted extends Error {
  constructor() {
    super('sleep aborted');
    this.name = 'SleepAborted';
  }
}

/** Resolves after `ms` on `clock`; rejects with `SleepAborted` when `signal` aborts first. */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(new SleepAborted());
  if (ms <= 0 && !signal) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clock.clearTimeout(id);
      reject(new SleepAborted());
    };
    const id = clock.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, Math.max(0, ms));
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
