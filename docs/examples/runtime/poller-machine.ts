// A hand-written controller machine: full control over states and timers, built from the same
// parts defineController uses (WorkQueue, workerMachine). It polls a fixed list of keys every
// `periodMs`, can be paused and resumed, and drains its workers on STOP.
import type { Logger } from 'pino';
import { enqueueActions, fromPromise, setup } from 'xstate';
import { workerMachine, type ReconcileFunction, type WorkQueue } from 'svc';

export interface PollerInput {
  queue: WorkQueue;
  keys: string[];
  periodMs: number;
  workers: number;
  reconcile: ReconcileFunction;
  logger: Logger;
}

export const pollerMachine = setup({
  types: {
    input: {} as PollerInput,
    context: {} as PollerInput & { polls: number },
    events: {} as { type: 'PAUSE' } | { type: 'RESUME' } | { type: 'STOP' },
  },
  actors: {
    worker: workerMachine,
    drain: fromPromise<void, WorkQueue>(({ input }) => input.drained()),
  },
  delays: { period: ({ context }) => context.periodMs },
  actions: {
    spawnWorkers: enqueueActions(({ context, enqueue }) => {
      for (let i = 0; i < context.workers; i++) {
        enqueue.spawnChild('worker', { id: `worker-${i}`, input: { queue: context.queue, reconcile: context.reconcile, logger: context.logger } });
      }
    }),
    poll: enqueueActions(({ context, enqueue }) => {
      for (const key of context.keys) context.queue.add(key);
      enqueue.assign({ polls: context.polls + 1 });
    }),
  },
}).createMachine({
  id: 'poller',
  context: ({ input }) => ({ ...input, polls: 0 }),
  entry: 'spawnWorkers',
  initial: 'polling',
  on: { STOP: '.stopping' },
  states: {
    polling: {
      entry: 'poll',
      after: { period: { target: 'polling', reenter: true } },
      on: { PAUSE: 'paused' },
    },
    paused: { on: { RESUME: 'polling' } },
    stopping: {
      entry: ({ context }) => context.queue.shutDown(),
      invoke: { src: 'drain', input: ({ context }) => context.queue, onDone: 'stopped' },
    },
    stopped: { type: 'final' },
  },
});
