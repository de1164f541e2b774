/**
 * The garbagecollector controller: deletes objects whose owners are gone, and carries out the
 * foreground and orphan deletions the API server starts (`foregroundDeletion` / `orphan`
 * finalizers), over every kind the server serves, built-in and custom.
 *
 * - Watches: every resource discovery lists with list, watch and delete (Events excepted, as
 *   established), at its preferred version. Discovery is read again every 30 s and whenever a
 *   CustomResourceDefinition changes, so custom kinds join and leave the graph as CRDs come and go.
 * - Keeps: the ownership graph (graph.ts). Queue keys are object uids.
 * - Writes: deletes (with a uid precondition), ownerReferences removal, the two finalizers'
 *   removal (attempt.ts says when).
 * - Guarantees: an object is deleted only after each of its owners was found gone (in the graph, or
 *   by a GET when the graph does not know it); an owner kind the server does not serve keeps the
 *   object.
 *
 * - Lifecycle: machines/lifecycles/garbagecollector.ts names, per object looked at, the step
 *   attempt.ts takes (orphaning, foreground.waitingForDependents / .releasing, deleting, kept, idle);
 *   tracked by `<resource>[.<group>]/<namespace>/<name>` and forgotten when the object is gone.
 *
 * It runs on the same controller machine as every defineController controller (leader gating,
 * workers, back-off, charts); only its sources are built here, since the set of watched kinds changes.
 */
import { Subject, type Subscription } from 'rxjs';
import { controllerMachine } from '../../machines/controller.js';
import { canonicalGroup } from '../../src/api/established-spelling.js';
import type { SvcObject } from '../../src/api/types.js';
import { systemClock } from '../../src/client/clock.js';
import type { IndexedCache, InformerEvent, SharedInformer } from '../../src/client/informer-types.js';
import { resources } from '../../src/client/typed.js';
import type { DiscoveredResource, ResourceRef } from '../../src/client/types.js';
import { defineController, runControllerMachine, type ControllerDefinition, type RunningController } from '../../src/runtime/define-controller.js';
import { EventRecorder } from '../../src/runtime/event-recorder.js';
import { done } from '../../src/runtime/outcome.js';
import { WorkQueue } from '../../src/runtime/work-queue.js';
import pino from 'pino';
import { garbageCollectorLifecycle, type GarbageFacts } from '../../machines/lifecycles/garbagecollector.js';
import { LifecycleTracker } from '../../src/runtime/lifecycle-tracker.js';
import type { LifecycleDefinition } from '../../src/runtime/lifecycle.js';
import { attempt, lifecycleKey } from './attempt.js';
import { FINALIZER_FOREGROUND, FINALIZER_ORPHAN, OwnershipGraph, type GraphNode } from './graph.js';

export const GC_NAME = 'garbagecollector';
const REDISCOVERY_MS = 30_000;
const CRD_DEBOUNCE_MS = 500;

/** Resources the collector does not watch (as established: Events are many and own nothing). */
const IGNORED = new Set(['/events', 'events.svc.io/events']);

const watchable = (r: DiscoveredResource) => ['list', 'watch', 'delete'].every((v) => r.verbs.includes(v)) && !IGNORED.has(`${r.group}/${r.resource}`);
const resourceId = (r: Pick<ResourceRef, 'group' | 'resource'>) => `${r.group}/${r.resource}`;

/** A graph node as the controller machine's cache shows it (its key is the uid). */
function asObject(n: GraphNode): SvcObject {
  return { metadata: { uid: n.uid, name: n.name, namespace: n.namespace } };
}

function needsLook(n: GraphNode): boolean {
  return n.owners.length > 0 || (n.beingDeleted && (n.finalizers.includes(FINALIZER_ORPHAN) || n.finalizers.includes(FINALIZER_FOREGROUND)));
}

export function garbageCollectorController(o: { concurrency: number }): ControllerDefinition<SvcObject> {
  // The spec describes it for charts and `svc run`-style hosts; start() below replaces the wiring.
  const nominal = defineController<SvcObject>({ name: GC_NAME, watches: resources.customresourcedefinitions, concurrency: o.concurrency, lifecycle: garbageCollectorLifecycle, reconcile: () => done() });
  return {
    name: GC_NAME,
    spec: nominal.spec,
    machine: controllerMachine,
    start(host): RunningController {
      const clock = host.clock ?? systemClock;
      const logger = (host.logger ?? pino({ level: 'info' }, pino.destination(2))).child({ controller: GC_NAME });
      const queue = new WorkQueue({ name: GC_NAME, clock, ...(host.registry ? { registry: host.registry } : {}) });
      const recorder = new EventRecorder({ client: host.client, component: GC_NAME, clock, logger });
      const graph = new OwnershipGraph();
      // Each object it looks at, keyed `<resource>[.<group>]/<namespace>/<name>` (queue keys are uids, unreadable).
      const lifecycle = new LifecycleTracker(garbageCollectorLifecycle as LifecycleDefinition, { clock });
      const watched = new Map<string, { ref: DiscoveredResource; informer: SharedInformer; sub: Subscription }>();
      let kinds = new Map<string, ResourceRef>();
      let discovered = false;
      let stopped = false;
      let timer: unknown;

      const queueAll = (uids: readonly string[]) => {
        for (const uid of uids) if (uid) queue.add(uid);
      };
      // The machine learns of the sync from a SYNCED event; other events are queued here directly.
      const syncSignal = new Subject<InformerEvent>();
      const hasSynced = () => discovered && [...watched.values()].every((w) => w.informer.hasSynced());
      // Logged once per set of watched resources, as established ("all resource monitors have
      // synced"): operators (and the topology tests) read from it what the collector watches.
      let loggedSyncOf = '';
      const signalSynced = () => {
        if (!hasSynced()) return;
        const names = [...watched.values()].map((w) => (w.ref.group ? `${w.ref.resource}.${w.ref.group}` : w.ref.resource)).sort();
        if (names.join(',') !== loggedSyncOf) {
          loggedSyncOf = names.join(',');
          logger.info({ resources: names }, 'all resource monitors have synced');
        }
        syncSignal.next({ type: 'SYNCED' });
      };
      const onEvent = (ref: ResourceRef, e: InformerEvent) => {
        if (e.type === 'SYNCED') {
          signalSynced();
          return;
        }
        const uid = e.object.metadata.uid ?? '';
        if (e.type === 'DELETED') {
          const gone = graph.get(uid);
          if (gone) lifecycle.forget(lifecycleKey(gone));
        }
        queueAll(e.type === 'DELETED' ? graph.remove(uid) : graph.upsert(ref, e.object));
      };

      const refresh = async () => {
        if (stopped) return;
        try {
          const list = (await host.client.discover()).filter(watchable);
          const next = new Map<string, ResourceRef>();
          for (const r of list) next.set(`${r.group}/${r.kind}`, r);
          kinds = next;
          const ids = new Set(list.map(resourceId));
          for (const r of list) {
            if (watched.has(resourceId(r))) continue;
            const informer = host.informers.informer(r);
            watched.set(resourceId(r), { ref: r, informer, sub: informer.events$.subscribe((e) => onEvent(r, e)) });
          }
          for (const [id, w] of watched) {
            if (ids.has(id)) continue;
            w.sub.unsubscribe();
            watched.delete(id);
            queueAll(graph.forgetResource(w.ref));
          }
          discovered = true;
          signalSynced();
        } catch (e) {
          logger.warn({ err: (e as Error).message }, 'discovery failed; keeping the resources watched so far');
        }
      };
      const schedule = (ms: number) => {
        clock.clearTimeout(timer);
        timer = clock.setTimeout(() => void refresh().then(() => !stopped && schedule(REDISCOVERY_MS)), ms);
      };
      // A CRD created or deleted changes what is served: look again soon.
      const crdSub = host.informers.informer(resources.customresourcedefinitions).events$.subscribe((e) => {
        if (e.type !== 'SYNCED' && discovered) schedule(CRD_DEBOUNCE_MS);
      });
      void refresh().then(() => !stopped && schedule(REDISCOVERY_MS));

      const cache: IndexedCache = {
        get: (uid) => {
          const n = graph.get(uid);
          return n ? asObject(n) : undefined;
        },
        list: () => [...graph.all()].filter(needsLook).map(asObject),
        byIndex: () => [],
        addIndex: () => {},
        get size() {
          return graph.size;
        },
      };
      const source = {
        events$: syncSignal.asObservable(),
        cache,
        hasSynced,
        keysFor: (obj: SvcObject) => [obj.metadata.uid ?? ''],
        resource: 'every resource with ownerReferences (graph)',
        role: 'watches' as const,
      };
      const actx = {
        graph,
        client: host.client,
        // An owner reference written in the established spelling names the same kind as ours.
        resolve: (apiVersion: string, kind: string) => kinds.get(`${apiVersion.includes('/') ? canonicalGroup(apiVersion.slice(0, apiVersion.indexOf('/'))) : ''}/${kind}`),
        log: (msg: string, fields?: Record<string, unknown>) => logger.info(fields ?? {}, msg),
        observe: (node: GraphNode, facts: GarbageFacts) => lifecycle.observe(lifecycleKey(node), facts),
      };
      const running = runControllerMachine({
        name: GC_NAME,
        host,
        clock,
        queue,
        recorder,
        logger,
        sources: [source],
        concurrency: o.concurrency,
        reconcile: (uid: string) => attempt(uid, actx),
        lifecycle,
      });
      void running.finished.then(() => {
        stopped = true;
        clock.clearTimeout(timer);
        crdSub.unsubscribe();
        for (const w of watched.values()) w.sub.unsubscribe();
        watched.clear();
      });
      return running;
    },
  };
}
