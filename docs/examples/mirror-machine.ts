// Full control: the mirror's reconcile in a machine written by hand. Besides what defineController
// gives, it has a maintenance window as states: PAUSE stops the workers (changes keep queueing,
// deduplicated), RESUME starts them again, STOP drains. Built from the same parts: informers,
// a WorkQueue, workerMachine children, an EventRecorder.
import type { Logger } from 'pino';
import { createActor, enqueueActions, fromCallback, fromPromise, setup, stopChild } from 'xstate';
import { workerMachine, objectKey, resources, EventRecorder, reconcileLifecycle, splitKey, systemClock, WorkQueue, type ReconcileFunction, type SvcObject, type ApiClient, type IndexedCache, type InformerFactory, type SharedInformer } from 'svc';
import { mirrorController } from './mirror-controller.js';

/** An informer and the keys a change of one of its objects queues. */
interface Source {
  informer: SharedInformer;
  keysFor(obj: SvcObject): string[];
}

interface MirrorMachineInput {
  queue: WorkQueue;
  sources: Source[];
  reconcile: ReconcileFunction;
  workers: number;
  logger: Logger;
}

/** Queues keys of changed objects; says SYNCED once every informer has listed. */
const feed = fromCallback<{ type: 'SYNCED' }, { sources: Source[]; queue: WorkQueue }>(({ input, sendBack }) => {
  const subs = input.sources.map(({ informer, keysFor }) =>
    informer.events$.subscribe((ev) => {
      if (ev.type !== 'SYNCED') for (const key of keysFor(ev.object)) input.queue.add(key);
      else if (input.sources.every((s) => s.informer.hasSynced())) sendBack({ type: 'SYNCED' });
    }),
  );
  return () => subs.forEach((s) => s.unsubscribe());
});

export const mirrorMachine = setup({
  types: {
    input: {} as MirrorMachineInput,
    context: {} as MirrorMachineInput,
    events: {} as { type: 'SYNCED' } | { type: 'PAUSE' } | { type: 'RESUME' } | { type: 'STOP' },
  },
  actors: { feed, worker: workerMachine, drain: fromPromise<void, WorkQueue>(({ input }) => input.drained()) },
  actions: {
    startWorkers: enqueueActions(({ context, enqueue }) => {
      for (let i = 0; i < context.workers; i++) {
        enqueue.spawnChild('worker', { id: `worker-${i}`, input: { queue: context.queue, reconcile: context.reconcile, logger: context.logger } });
      }
    }),
    // A stopped worker hands a key it was just given back to the queue: nothing is lost.
    stopWorkers: enqueueActions(({ context, enqueue }) => {
      for (let i = 0; i < context.workers; i++) enqueue(stopChild(`worker-${i}`));
    }),
  },
}).createMachine({
  id: 'mirror',
  context: ({ input }) => input,
  invoke: { id: 'feed', src: 'feed', input: ({ context }) => ({ sources: context.sources, queue: context.queue }) },
  initial: 'syncing',
  on: { STOP: '.stopping' },
  states: {
    syncing: { on: { SYNCED: 'running' } },
    running: { entry: 'startWorkers', exit: 'stopWorkers', on: { PAUSE: 'paused' } },
    paused: { on: { RESUME: 'running' } },
    stopping: {
      entry: ({ context }) => context.queue.shutDown(),
      invoke: { src: 'drain', input: ({ context }) => context.queue, onDone: 'stopped' },
    },
    stopped: { type: 'final' },
  },
});

/** Wires the machine to a client and informers, with the mirror controller's reconcile and triggers. */
export function startMirrorMachine(host: { client: ApiClient; informers: InformerFactory; logger: Logger }) {
  const { spec } = mirrorController;
  const configmaps = host.informers.informer(resources.configmaps);
  const namespaces = host.informers.informer(resources.namespaces);
  const [copyChanged, namespaceChanged] = spec.triggers!;
  const recorder = new EventRecorder({ client: host.client, component: 'mirror-machine', logger: host.logger });
  const reconcile: ReconcileFunction = (key) =>
    spec.reconcile(key, {
      key,
      ...splitKey(key),
      object: configmaps.cache.get(key),
      cache: configmaps.cache,
      cacheOf: <U extends SvcObject>(ref: { resource: string }) => (ref.resource === 'namespaces' ? namespaces.cache : configmaps.cache) as IndexedCache<U>,
      client: host.client,
      recorder,
      logger: host.logger.child({ key }),
      clock: systemClock,
      // The mirror controller follows no lifecycle (spec.lifecycle is absent).
      lifecycle: reconcileLifecycle('mirror-machine', undefined, key),
    });
  const sources: Source[] = [
    { informer: configmaps, keysFor: (o) => [objectKey(o), ...copyChanged!.keysFor(o, configmaps.cache)] },
    { informer: namespaces, keysFor: (o) => namespaceChanged!.keysFor(o, configmaps.cache) },
  ];
  const actor = createActor(mirrorMachine, { input: { queue: new WorkQueue({ name: 'mirror-machine' }), sources, reconcile, workers: 2, logger: host.logger } });
  return actor.start();
}
