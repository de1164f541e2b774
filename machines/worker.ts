/**
 * One worker of a controller: a child actor that takes a key from the work queue, reconciles it,
 * applies the outcome to the queue, and takes the next key; `finished` once the queue shuts down.
 *
 *   waiting --key--> reconciling --result--> waiting
 *   waiting --queue shut down--> finished
 *
 * Outcomes (src/runtime/outcome.ts): `done` forgets the key's back-off; `requeueAfter(ms)` forgets
 * it and queues the key again after `ms`; `requeue` and a thrown error queue it again with back-off
 * (the error is logged with the key); a `TerminalError` is logged and not retried. The key is always
 * marked `done` in the queue, so a change that arrived during the reconcile is picked up next.
 */
import type { Logger } from 'pino';
import { assign, fromPromise, setup } from 'xstate';
import { TerminalError, type ReconcileOutcome, type ReconcileResult } from '../src/runtime/outcome.js';
import type { WorkQueue } from '../src/runtime/work-queue.js';

export type ReconcileFunction = (key: string) => Promise<ReconcileOutcome> | ReconcileOutcome;

export interface WorkerInput {
  queue: WorkQueue;
  reconcile: ReconcileFunction;
  logger: Logger;
}

interface WorkerContext extends WorkerInput {
  key: string | undefined;
  /** Reconciles finished by this worker, by result kind (for /debug and tests). */
  counts: Record<ReconcileResult['kind'], number>;
}

/** Runs one reconcile and turns whatever happens (including a throw) into a `ReconcileResult`. */
export async function runReconcile(reconcile: ReconcileFunction, key: string): Promise<ReconcileResult> {
  try {
    return await reconcile(key);
  } catch (error) {
    return error instanceof TerminalError ? { kind: 'terminal', error } : { kind: 'failed', error };
  }
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

export const workerMachine = setup({
  types: {
    input: {} as WorkerInput,
    context: {} as WorkerContext,
  },
  actors: {
    nextKey: fromPromise<string | undefined, { queue: WorkQueue }>(({ input }) => input.queue.get()),
    reconcileKey: fromPromise<ReconcileResult, { reconcile: ReconcileFunction; key: string }>(({ input }) =>
      runReconcile(input.reconcile, input.key),
    ),
  },
}).createMachine({
  id: 'worker',
  context: ({ input }) => ({ ...input, key: undefined, counts: { done: 0, requeue: 0, requeueAfter: 0, failed: 0, terminal: 0 } }),
  initial: 'waiting',
  states: {
    waiting: {
      invoke: {
        src: 'nextKey',
        input: ({ context }) => ({ queue: context.queue }),
        onDone: [
          { guard: ({ event }) => event.output === undefined, target: 'finished' },
          { target: 'reconciling', actions: assign({ key: ({ event }) => event.output }) },
        ],
      },
    },
    reconciling: {
      invoke: {
        src: 'reconcileKey',
        input: ({ context }) => ({ reconcile: context.reconcile, key: context.key! }),
        onDone: {
          target: 'waiting',
          actions: [
            ({ context, event }) => settle(context.queue, context.logger, context.key!, event.output),
            assign({
              key: undefined,
              counts: ({ context, event }) => ({ ...context.counts, [event.output.kind]: context.counts[event.output.kind] + 1 }),
            }),
          ],
        },
      },
    },
    finished: { type: 'final' },
  },
});
