/**
 * `defineController`: the common shape of a controller in a few lines. It watches one resource
 * (its keys are `namespace/name` of those objects), optionally owns others (a change to an owned
 * object queues its controlling owner), and reconciles keys with `concurrency` workers.
 *
 * The definition is inert: `start(host)` wires it to a client and informer factory and runs the
 * controller machine (machines/controller.ts); `machine` is that machine's definition, for charts.
 * For full control, write your own machine on the same parts (see docs/runtime.md).
 */
import type { Logger } from 'pino';
import pino from 'pino';
import type { Registry } from 'prom-client';
import { createActor, toPromise, type InspectionEvent } from 'xstate';
import { controllerMachine, type ControllerActor, type ControllerSource } from '../../machines/controller.js';
import type { SvcObject } from '../api/types.js';
import { type IndexedCache, type InformerFactory, type InformerSelector, type SharedInformer } from '../client/informer-types.js';
import { keyFor, objectKey, splitKey } from '../client/object-keys.js';
import type { ApiClient, ResourceRef } from '../client/types.js';
import { systemClock, type Clock } from './clock.js';
import { ControllerActivity, type SourceRole } from './controller-activity.js';
import type { ChartModel } from './inspection/chart-model.js';
import { controllerChartModel } from './inspection/controller-chart.js';
import { EventRecorder } from './event-recorder.js';
import type { PolicyRule } from './controller-permissions.js';
import type { LifecycleDefinition, LifecycleState } from './lifecycle.js';
import { LifecycleTracker } from './lifecycle-tracker.js';
import type { ReconcileOutcome } from './outcome.js';
import { apiVersionOf } from './resource-refs.js';
import { WorkQueue } from './work-queue.js';

export interface ReconcileContext<T extends SvcObject = SvcObject> {
  key: string;
  /** From the key; undefined for cluster-scoped objects. */
  namespace: string | undefined;
  name: string;
  /** The watched object as cached now; undefined once it is deleted. Frozen: clone before changing. */
  object: T | undefined;
  /** The watched resource's cache. */
  cache: IndexedCache<T>;
  /** The cache of the watched, an owned or a trigger resource (only those: others are not informed). */
  cacheOf<U extends SvcObject = SvcObject>(ref: ResourceRef): IndexedCache<U>;
  client: ApiClient;
  recorder: EventRecorder;
  /** The controller's logger with `key` bound. */
  logger: Logger;
  /** The host's clock (simulated in tests): read time from it, never from Date. */
  clock: Clock;
  /** The object's lifecycle, for a controller whose spec names one (./lifecycle.ts). */
  lifecycle: ReconcileLifecycle;
}

/** What a reconcile does with its controller's lifecycle: evaluate it on what it observed of its key. */
export interface ReconcileLifecycle {
  /**
   * Evaluates `def` (the spec's `lifecycle`) on `facts` for this key, records where the object now
   * stands (for /debug/machines and `svc explain`) and returns the state to act on.
   */
  observe<F>(def: LifecycleDefinition<F>, facts: F): LifecycleState;
  /** The object is gone (or no longer this controller's): stop showing it. */
  forget(): void;
}

export interface ControllerSpec<T extends SvcObject = SvcObject> {
  /** Names the controller in logs, metrics (`name` label), Events' source and charts. */
  name: string;
  watches: ResourceRef<T>;
  /** Restricts the watched objects (namespace, label and field selectors). */
  selector?: InformerSelector;
  /** Resources whose objects the controller creates with a controller ownerReference to a watched object. */
  owns?: ResourceRef[];
  /**
   * Other changes that should queue watched keys, where no ownerReference links them (another
   * namespace, a label, a cluster-scoped object): `keysFor` maps a changed object to the keys.
   */
  triggers?: ControllerTrigger<T>[];
  /** Workers, i.e. reconciles at once; default 1 (the `--concurrent-*-syncs` value). */
  concurrency?: number;
  /**
   * RBAC rules for what `reconcile` does beyond reading what it watches and writing what it owns
   * (those are implied; see ./controller-permissions.ts): e.g. `{ resources: ['configmaps'],
   * verbs: ['create', 'update', 'delete'] }` for a controller that writes ConfigMaps it does not own.
   * `svc rbac <module>` prints the ClusterRole; the test cluster runs the controller with exactly it.
   */
  permissions?: readonly PolicyRule[];
  /**
   * The lifecycle the watched objects go through (a machine in machines/lifecycles/): the reconcile
   * evaluates it with `ctx.lifecycle.observe` and acts on the state; it is charted with the
   * controller and shown per object live.
   */
  lifecycle?: LifecycleDefinition<unknown>;
  reconcile(key: string, ctx: ReconcileContext<T>): Promise<ReconcileOutcome> | ReconcileOutcome;
}

/** A resource whose changes queue keys of the watched resource (see `ControllerSpec.triggers`). */
export interface ControllerTrigger<T extends SvcObject = SvcObject> {
  resource: ResourceRef;
  selector?: InformerSelector;
  /** The watched keys to reconcile when `obj` changes; `watched` is the watched resource's cache. */
  keysFor(obj: SvcObject, watched: IndexedCache<T>): string[];
}

export interface ControllerHost {
  client: ApiClient;
  informers: InformerFactory;
  /** Default: pino at info to standard error. */
  logger?: Logger;
  /** Where `workqueue_*` metrics go; none when absent. */
  registry?: Registry;
  /** Default systemClock; tests pass xstate's SimulatedClock. */
  clock?: Clock;
  /** When true the controller waits for `leaderElected()`; default false. */
  leaderElection?: boolean;
  /** `--min-resync-period`; default 12 h. */
  minResyncPeriodMs?: number;
  /** Default 2 min. */
  cacheSyncTimeoutMs?: number;
  random?: () => number;
  /** xstate's inspection callback for the controller and its workers (e.g. a MachineInspector's `inspect`). */
  inspect?: (event: InspectionEvent) => void;
}

/** How a controller ended: stopped (asked to, or leadership lost) or caches never synced. */
export type ControllerEnd = 'stopped' | 'cacheSyncFailed';

export interface RunningController {
  readonly name: string;
  readonly actor: ControllerActor;
  readonly queue: WorkQueue;
  readonly recorder: EventRecorder;
  /** What it is doing now (queue, keys in hand, recent reconciles, informers): the live view's facts. */
  readonly activity: ControllerActivity;
  leaderElected(): void;
  leaderLost(): void;
  /** Stops taking keys, waits for in-flight reconciles, resolves how it ended. */
  stop(): Promise<ControllerEnd>;
  /** Resolves when the controller machine reaches a final state. */
  readonly finished: Promise<ControllerEnd>;
}

export interface ControllerDefinition<T extends SvcObject = SvcObject> {
  readonly name: string;
  readonly spec: ControllerSpec<T>;
  /** The machine every defineController controller runs (for charts and inspection). */
  readonly machine: typeof controllerMachine;
  start(host: ControllerHost): RunningController;
}

/** Keys of the watched owners that control `obj` (controller ownerReferences of the watched kind). */
export function controllerOwnerKeys(obj: SvcObject, owner: ResourceRef): string[] {
  const apiVersion = apiVersionOf(owner);
  return (obj.metadata.ownerReferences ?? [])
    .filter((r) => r.controller === true && r.kind === owner.kind && r.apiVersion === apiVersion)
    .map((r) => keyFor(owner.namespaced ? obj.metadata.namespace : undefined, r.name));
}

/** `configmaps`, `apps/replicasets`: names a resource in the informer map and the live view. */
function resourceLabel(ref: ResourceRef): string {
  return ref.group ? `${ref.group}/${ref.resource}` : ref.resource;
}

export function defineController<T extends SvcObject = SvcObject>(spec: ControllerSpec<T>): ControllerDefinition<T> {
  if (!spec.name) throw new Error('defineController: name is required');
  return {
    name: spec.name,
    spec,
    machine: controllerMachine,
    start(host) {
      const clock = host.clock ?? systemClock;
      const logger = (host.logger ?? pino({ level: 'info' }, pino.destination(2))).child({ controller: spec.name });
      const queue = new WorkQueue({ name: spec.name, clock, ...(host.registry ? { registry: host.registry } : {}) });
      const recorder = new EventRecorder({ client: host.client, component: spec.name, clock, logger });
      const watched = host.informers.informer<T>(spec.watches, spec.selector);
      const informers = new Map<string, SharedInformer>([[resourceLabel(spec.watches), watched as unknown as SharedInformer]]);
      const source = (inf: SharedInformer, ref: ResourceRef, role: SourceRole, keysFor: (o: SvcObject) => string[]): ControllerSource => ({
        events$: inf.events$,
        cache: inf.cache,
        hasSynced: () => inf.hasSynced(),
        keysFor,
        resource: resourceLabel(ref),
        role,
      });
      const sources = [source(watched as unknown as SharedInformer, spec.watches, 'watches', (o) => [objectKey(o)])];
      for (const ref of spec.owns ?? []) {
        const inf = host.informers.informer(ref);
        informers.set(resourceLabel(ref), inf);
        sources.push(source(inf, ref, 'owns', (o) => controllerOwnerKeys(o, spec.watches)));
      }
      for (const t of spec.triggers ?? []) {
        const inf = host.informers.informer(t.resource, t.selector);
        if (!informers.has(resourceLabel(t.resource))) informers.set(resourceLabel(t.resource), inf);
        sources.push(source(inf, t.resource, 'triggers', (o) => t.keysFor(o, watched.cache)));
      }
      const tracker = spec.lifecycle ? new LifecycleTracker(spec.lifecycle as LifecycleDefinition, { clock }) : undefined;
      const reconcile = (key: string) => {
        const { namespace, name } = splitKey(key);
        return spec.reconcile(key, {
          key,
          namespace,
          name,
          object: watched.cache.get(key),
          cache: watched.cache,
          cacheOf: <U extends SvcObject>(ref: ResourceRef) => {
            const inf = informers.get(resourceLabel(ref));
            if (!inf) throw new Error(`${spec.name}: ${ref.resource} is neither watched, owned nor a trigger; its cache is not kept`);
            return inf.cache as unknown as IndexedCache<U>;
          },
          client: host.client,
          recorder,
          logger: logger.child({ key }),
          clock,
          lifecycle: reconcileLifecycle(spec.name, tracker, key),
        });
      };
      const chart = controllerChartModel(spec);
      return runControllerMachine({ name: spec.name, host, clock, queue, recorder, logger, sources, concurrency: spec.concurrency ?? 1, reconcile, chart, ...(tracker ? { lifecycle: tracker } : {}) });
    },
  };
}

/** A reconcile's handle on its controller's lifecycle tracker, bound to its key. */
export function reconcileLifecycle(controller: string, tracker: LifecycleTracker | undefined, key: string): ReconcileLifecycle {
  return {
    observe<F>(def: LifecycleDefinition<F>, facts: F): LifecycleState {
      if (!tracker || tracker.definition !== (def as LifecycleDefinition)) {
        throw new Error(`${controller}: lifecycle ${def.controller} is not the one its spec names (spec.lifecycle)`);
      }
      return (tracker as LifecycleTracker<F>).observe(key, facts);
    },
    forget: () => tracker?.forget(key),
  };
}

export interface ControllerMachineParts {
  name: string;
  host: ControllerHost;
  clock: Clock;
  queue: WorkQueue;
  recorder: EventRecorder;
  logger: Logger;
  sources: ControllerSource[];
  concurrency: number;
  reconcile: (key: string) => Promise<ReconcileOutcome> | ReconcileOutcome;
  /** The controller's own chart for the live view (defineController draws it from the spec). */
  chart?: ChartModel;
  /** Where its objects stand in their lifecycle, when it has one. */
  lifecycle?: LifecycleTracker;
}

/**
 * Starts the controller machine on given sources and hands back the running controller: what
 * `defineController` does once it has built its sources, and what a controller with sources of
 * its own (the garbage collector's graph) uses too.
 */
export function runControllerMachine(p: ControllerMachineParts): RunningController {
  const { host } = p;
  const activity = new ControllerActivity({ name: p.name, queue: p.queue, clock: p.clock, ...(p.chart ? { chart: p.chart } : {}), ...(p.lifecycle ? { lifecycle: p.lifecycle } : {}) });
  // Named after the controller, so /debug/machines lists `replicaset`, not `x:3`.
  const actor = createActor(controllerMachine, {
    id: p.name,
    systemId: `controller/${p.name}`,
    clock: p.clock,
    ...(host.inspect ? { inspect: host.inspect } : {}),
    input: {
      activity,
      name: p.name,
      queue: p.queue,
      sources: p.sources,
      concurrency: p.concurrency,
      reconcile: p.reconcile,
      logger: p.logger,
      needsLeader: host.leaderElection ?? false,
      ...(host.minResyncPeriodMs !== undefined ? { minResyncPeriodMs: host.minResyncPeriodMs } : {}),
      ...(host.cacheSyncTimeoutMs !== undefined ? { cacheSyncTimeoutMs: host.cacheSyncTimeoutMs } : {}),
      ...(host.random ? { random: host.random } : {}),
    },
  });
  const finished = toPromise(actor).then(() => (actor.getSnapshot().value === 'cacheSyncFailed' ? 'cacheSyncFailed' : 'stopped') as ControllerEnd);
  actor.start();
  return {
    name: p.name,
    actor,
    queue: p.queue,
    recorder: p.recorder,
    activity,
    finished,
    leaderElected: () => actor.send({ type: 'LEADER_ELECTED' }),
    leaderLost: () => actor.send({ type: 'LEADER_LOST' }),
    stop() {
      actor.send({ type: 'STOP' });
      return finished;
    },
  };
}
