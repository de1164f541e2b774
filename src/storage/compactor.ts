/**
 * Periodic storage housekeeping of the API server:
 * - the compactor (--kvstore-compaction-interval): every interval it compacts to the revision it
 *   observed at the previous tick, so at least one full interval of history is always kept for
 *   watch restarts (the "retained change history" of the spec's limits);
 * - the object-count poller (--kvstore-count-metric-poll-period) feeding the per-resource object
 *   counts the API server exports on /metrics.
 * Both take injectable timers; 0 disables either.
 */
import type { Logger } from 'pino';
import type { KVStore } from './types.js';

export interface HousekeepingTimers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const globalTimers: HousekeepingTimers = {
  setTimeout: (fn, ms) => {
    const t = setTimeout(fn, ms);
    t.unref(); // housekeeping never keeps a process alive
    return t;
  },
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

export interface CompactorOptions {
  logger?: Logger;
  timers?: HousekeepingTimers;
  /** Called after each successful compaction (metrics, tests). */
  onCompacted?(revision: number): void;
}

export interface Housekeeper {
  stop(): void;
  /** Resolves when the first tick (run at start) is done. */
  ready: Promise<void>;
  /** Run one tick now (tests; the timer keeps its own schedule). Resolves when the tick is done. */
  tick(): Promise<void>;
}

/**
 * Starts compacting `store` every `intervalMs`. The first tick (immediately) only records the
 * current revision; each later tick compacts to the revision recorded by the tick before it.
 */
export function startCompactor(store: KVStore, intervalMs: number, opts: CompactorOptions = {}): Housekeeper {
  if (!(intervalMs > 0)) return { stop: () => undefined, ready: Promise.resolve(), tick: async () => undefined };
  const timers = opts.timers ?? globalTimers;
  const log = opts.logger;
  let previous: number | undefined;
  let stopped = false;
  let timer: unknown;
  let running: Promise<void> | undefined;

  const runTick = async (): Promise<void> => {
    const observed = await store.currentRevision();
    if (previous !== undefined && previous > 0) {
      const started = Date.now();
      await store.compact(previous);
      log?.info({ engine: store.engine, revision: previous, ms: Date.now() - started }, 'storage compacted');
      opts.onCompacted?.(previous);
    }
    previous = observed;
  };
  const tick = (): Promise<void> => {
    // Ticks never overlap: a manual tick during a timer tick waits for it.
    running = (running ?? Promise.resolve()).then(() =>
      stopped
        ? undefined
        : runTick().catch((err: unknown) => {
            // Keep the previous observation; the next tick retries.
            log?.warn({ engine: store.engine, err: (err as Error)?.message }, 'storage compaction failed');
          }),
    );
    return running;
  };
  const schedule = (): void => {
    if (stopped) return;
    timer = timers.setTimeout(() => {
      void tick().then(schedule);
    }, intervalMs);
  };
  const ready = tick();
  void ready.then(schedule);
  return {
    ready,
    stop() {
      stopped = true;
      if (timer !== undefined) timers.clearTimeout(timer);
    },
    tick,
  };
}

export interface CountPollerOptions {
  logger?: Logger;
  timers?: HousekeepingTimers;
}

/**
 * Every `periodMs` (first poll immediately), counts the live keys under `prefix` (one resource's
 * objects, e.g. `/registry/pods/`) and hands the number to `onCount`; -1 when counting failed
 * (the metric then shows the failure instead of a stale value).
 */
export function startCountPoller(
  store: KVStore,
  prefix: string,
  periodMs: number,
  onCount: (count: number) => void,
  opts: CountPollerOptions = {},
): Housekeeper {
  if (!(periodMs > 0)) return { stop: () => undefined, ready: Promise.resolve(), tick: async () => undefined };
  const timers = opts.timers ?? globalTimers;
  let stopped = false;
  let timer: unknown;
  let running: Promise<void> | undefined;

  const poll = async (): Promise<void> => {
    let count: number;
    try {
      count = await store.count(prefix);
    } catch (err) {
      count = -1;
      opts.logger?.warn({ prefix, err: (err as Error)?.message }, 'object count failed');
    }
    if (stopped) return;
    try {
      onCount(count);
    } catch (err) {
      opts.logger?.warn({ prefix, err: (err as Error)?.message }, 'object count consumer failed');
    }
  };
  const tick = (): Promise<void> => {
    running = (running ?? Promise.resolve()).then(() => (stopped ? undefined : poll()), () => undefined);
    return running;
  };
  const schedule = (): void => {
    if (stopped) return;
    timer = timers.setTimeout(() => {
      void tick().then(schedule, schedule);
    }, periodMs);
  };
  const ready = tick();
  void ready.then(schedule, schedule);
  return {
    ready,
    stop() {
      stopped = true;
      if (timer !== undefined) timers.clearTimeout(timer);
    },
    tick,
  };
}
