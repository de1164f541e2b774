/**
 * One worker of a controller: a child actor that takes a key from the work queue, reconciles it,
 * applies the outcome to the queue, and takes the next key; `finished` once the queue shuts down.
 *
 *   working --queue shut down (or the actor stopped)--> finished
 *
 * The take/reconcile/settle loop runs inside the `working` state's invoked promise rather than as
 * a transition per key: an xstate transition costs tens of µs, the loop well under one, and the
 * benchmark (docs/benchmarks.md) holds the layer to 80% of a plain async loop's throughput. The key
 * in hand and the per-outcome counts are live in `context.stats`, for /debug and tests.
 *
 * Outcomes (src/runtime/outcome.ts): `done` forgets the key's back-off; `requeueAfter(ms)` forgets
 * it and queues the key again after `ms`; `requeue` and a thrown error queue it again with back-off
 * (the error is logged with the key); a `TerminalError` is logged and not retried. The key is always
 * marked `done` in the queue, so a change that arrived during the reconcile is picked up next.
 */
import type { Logger } from 'pino';
import { fromPromise, setup } from 'xstate';
import type { ReconcileRecorder } from '../src/runtime/controller-activity.js';
import { TerminalError, type ReconcileOutcome, type ReconcileResult } from '../src/runtime/outcome.js';
import type { WorkQueue } from '../src/runtime/work-queue.js';
import { yieldIfBusy } from '../src/runtime/event-loop-turn.js';

export type ReconcileFunction = (key: string) => Promise<ReconcileOutcome> | ReconcileOutcome;

export interface WorkerInput {
  queue: WorkQueue;
  reconcile: ReconcileFunction;
  logger: Logger;
  /** Told of every reconcile (key, duration, outcome, retries) for the live view. */
  recorder?: ReconcileRecorder;
}

/** A worker's live counters: the key in hand and reconciles finished, by result kind. */
export interface WorkerStats {
  key: string | undefined;
  counts: Record<ReconcileResult['kind'], number>;
}

export interface WorkerContext extends WorkerInput {
  /** Mutated by the loop (not through events): read it, do not rely on snapshots changing. */
  stats: WorkerStats;
}

/** Runs one reconcile and turns whatever happens (including a throw) into a `ReconcileResult`. */
export async function runReconcile(reconcile: ReconcileFunction, key: string): Promise<ReconcileResult> {
  try {
    return await reconcile(key);
  } catch (error) {
    return failure(error);
  }
}

function failure(error: unknown): ReconcileResult {
  return error instanceof TerminalError ? { kind: 'terminal', error } : { kind: 'failed', error };
}

/** Applies a result to the queue (see the module comment), then marks the key done. */
export function settle(queue: WorkQueue, logger: Logger, key: string, result: ReconcileResult): void {
  switch (result.kind) {
    case 'done':
      queue.forget(key);
      break;
    case 'requeueAfter':
      queue.forget(key);
      queue.addAfter(key, result.delayMs);
      break;
    case 'requeue':
      queue.addRateLimited(key);
      break;
    case 'failed':
      logger.error({ key, err: result.error, retries: queue.numRequeues(key) }, 'reconcile failed; retrying with back-off');
      queue.addRateLimited(key);
      break;
    case 'terminal':
      logger.error({ key, err: result.error }, 'reconcile failed with a terminal error; not retrying');
      queue.forget(key);
      break;
  }
  queue.done(key);
}

/**
 * Takes, reconciles and settles keys until the queue shuts down. When the worker actor is stopped
 * (its signal aborts) a key taken meanwhile is handed back to the queue, never lost.
 */
export async function workLoop(input: WorkerInput & { stats: WorkerStats }, signal: AbortSignal): Promise<void> {
  const { queue, reconcile, logger, stats, recorder } = input;
  // Begin once the transition that started this worker is over: a reconcile never runs inside one.
  await Promise.resolve();
  for (;;) {
    // Reconciles answered from the caches never leave the microtask queue: after a few ms of them
    // the event loop gets a turn (timers first: the lease's renewal), see event-loop-turn.ts.
    const turn = yieldIfBusy();
    if (turn) await turn;
    // A ready key is taken at once; only an empty queue costs a wait.
    const key = queue.tryGet() ?? (await queue.get());
    if (key === undefined) return;
    if (signal.aborted) {
      queue.add(key);
      queue.done(key);
      return;
    }
    stats.key = key;
    recorder?.started(key);
    const retries = recorder ? queue.numRequeues(key) : 0;
    // runReconcile inlined: one await per reconcile, as a plain loop has.
    let result: ReconcileResult;
    try {
      result = await reconcile(key);
    } catch (error) {
      result = failure(error);
    }
    settle(queue, logger, key, result);
    recorder?.finished(result, retries);
    stats.key = undefined;
    stats.counts[result.kind]++;
  }
}

export const workerMachine = setup({
  types: {
    input: {} as WorkerInput,
    context: {} as WorkerContext,
  },
  actors: {
    loop: fromPromise<void, WorkerInput & { stats: WorkerStats }>(({ input, signal }) => workLoop(input, signal)),
  },
}).createMachine({
  id: 'worker',
  context: ({ input }) => ({ ...input, stats: { key: undefined, counts: { done: 0, requeue: 0, requeueAfter: 0, failed: 0, terminal: 0 } } }),
  initial: 'working',
  states: {
    working: {
      invoke: {
        src: 'loop',
        input: ({ context }) => context,
        onDone: 'finished',
        // settle() and the logger do not throw; should they, the worker ends rather than spin.
        onError: { target: 'finished', actions: ({ context, event }) => context.logger.error({ err: event.error }, 'worker loop failed') },
      },
    },
    finished: { type: 'final' },
  },
});
