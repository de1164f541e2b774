/**
 * The nodelifecycle controller, with the taint manager (spec: --node-monitor-period and the node
 * eviction flags; the established NodeLifecycleController).
 *
 * - Watches: Nodes (key: the node's name). Triggers: Pods on a node with NoExecute taints (key: that
 *   node), Leases in svc-node-lease (cache only: a renewed Lease is a heartbeat). Key `:tick` runs
 *   the monitor pass every --node-monitor-period and the zones' eviction queues every 100 ms while
 *   they hold nodes.
 * - Monitor pass (`:tick`): each node's health (./health.ts): silent past
 *   --node-monitor-grace-period (or --node-startup-grace-period if it never posted) -> its
 *   conditions Unknown (status update). Ready not True -> a `NodeNotReady` Event and its pods'
 *   Ready condition False. Zone states (./zones.ts) set each zone's eviction rate. With the taint
 *   manager (--enable-taint-manager, default): a node whose Ready is False/Unknown is queued in its
 *   zone for the NoExecute `node.svc.io/not-ready` / `node.svc.io/unreachable` taint (swapped at
 *   once if it has the other one); Ready True lifts both. Without it: a node not Ready for
 *   --pod-eviction-timeout is queued and its pods (not DaemonSet pods) deleted, with reason NodeLost.
 * - Node key: the NoSchedule taints follow its conditions (./taints.ts); the taint manager deletes
 *   its pods that do not tolerate its NoExecute taints, now or after their tolerationSeconds
 *   (./taint-manager.ts; Event TaintManagerEviction on the pod); `RegisteredNode` /
 *   `RemovingNode` Events when a node is first seen / gone.
 * - Lifecycle: machines/lifecycles/nodelifecycle.ts names each node's state on its key's pass
 *   (taintingNoSchedule, noExecute.evicting / .tolerating / .tainted, notReady, unreachable, ready)
 *   and the pass does that state's step (swap NoSchedule taints, delete pods, wait).
 * - Writes: nodes (taints, by update with resourceVersion), nodes/status (Unknown conditions),
 *   pods (delete), pods/status (Ready False, NodeLost), Events.
 * - State: per node health and the zones' states and queues live in this process (rebuilt from
 *   the caches after a restart or a change of leader, as established).
 */
import type { Condition, Lease, Node, Pod } from '../../src/api/generated/kinds.js';
import type { Taint } from '../../src/api/kind-parts.js';
import { NODE_LEASE_NAMESPACE } from '../../src/api/node-identity.js';
import { rfc3339 } from '../../src/api/time.js';
import { resources } from '../../src/client/typed.js';
import { ApiError, type ApiClient } from '../../src/client/types.js';
import { defineController, type ControllerDefinition, type ReconcileContext } from '../../src/runtime/define-controller.js';
import { done, requeueAfter, type ReconcileOutcome } from '../../src/runtime/outcome.js';
import type { ControllerManagerConfig } from '../config.js';
import { ZoneEvictionQueue, type TryResult } from './eviction-queue.js';
import { decideHealth, readyCondition, type NodeHealth } from './health.js';
import type { ScheduledEviction } from './taint-manager.js';
import { nodeFacts, planEvictions, podKey } from './lifecycle-facts.js';
import { nodeLifecycle } from '../../machines/lifecycles/nodelifecycle.js';
import { hasTaint, noExecuteTaints, noScheduleDiff, NOT_READY_NO_EXECUTE, swapTaints, UNREACHABLE_NO_EXECUTE } from './taints.js';
import { excludedFromDisruption, planDisruption, zoneKey, zoneName, type ZoneState } from './zones.js';

/** The manager's settings this controller reads (controllers/config.ts documents each), and its workers. */
export type NodeLifecycleOptions = Pick<
  ControllerManagerConfig,
  | 'nodeMonitorPeriodMs'
  | 'nodeMonitorGracePeriodMs'
  | 'nodeStartupGracePeriodMs'
  | 'podEvictionTimeoutMs'
  | 'nodeEvictionRate'
  | 'secondaryNodeEvictionRate'
  | 'largeClusterSizeThreshold'
  | 'unhealthyZoneThreshold'
  | 'enableTaintManager'
  | 'featureGates'
> & {
  /** Workers (the established controller runs 8 for node updates). */
  concurrency?: number;
};

export const TICK_KEY = ':tick';
/** How often the zones' queues are tried while they hold nodes (established nodeEvictionPeriod). */
export const EVICTION_PERIOD_MS = 100;
/** A failed taint or eviction attempt is tried again after this long. */
const RETRY_MS = 50;
/** Pod status writes at once when a node stops being Ready (markPodsNotReady). */
const EVICTION_WORKERS = 8;
const POD_INDEX = 'nodelifecycle.nodeName';

const isDaemonSetPod = (p: Pod) => (p.metadata.ownerReferences ?? []).some((r) => r.controller === true && r.kind === 'DaemonSet');

/** Everything the controller keeps between passes; fresh for every start (a new leader rebuilds it). */
class LifecycleState {
  readonly health = new Map<string, NodeHealth>();
  readonly known = new Map<string, Node>();
  zoneStates = new Map<string, ZoneState>();
  readonly queues = new Map<string, ZoneEvictionQueue>();
  readonly scheduled = new Map<string, ScheduledEviction>();
  tickStarted = false;
  lastMonitorAt = -Infinity;
}

export function nodeLifecycleController(o: NodeLifecycleOptions): ControllerDefinition<Node> {
  let state = new LifecycleState();
  let indexed = false;
  const rates = { nodeEvictionRate: o.nodeEvictionRate, secondaryNodeEvictionRate: o.secondaryNodeEvictionRate, largeClusterSizeThreshold: o.largeClusterSizeThreshold };

  const podsOf = (ctx: ReconcileContext<Node>, node: string): Pod[] => {
    const pods = ctx.cacheOf<Pod>(resources.pods);
    if (!indexed) {
      pods.addIndex(POD_INDEX, (p) => (p.spec?.nodeName ? [p.spec.nodeName] : []));
      indexed = true;
    }
    return pods.byIndex(POD_INDEX, node);
  };

  const queueOf = (zone: string, ctx: ReconcileContext<Node>): ZoneEvictionQueue => {
    let q = state.queues.get(zone);
    if (!q) {
      q = new ZoneEvictionQueue(o.nodeEvictionRate, ctx.clock);
      state.queues.set(zone, q);
      state.zoneStates.set(zone, state.zoneStates.get(zone) ?? 'Initial');
    }
    return q;
  };

  const inner = defineController<Node>({
    name: 'nodelifecycle',
    watches: resources.nodes,
    concurrency: o.concurrency ?? 8,
    lifecycle: nodeLifecycle,
    triggers: [
      {
        // The first node seen starts the monitor's timer (it then requeues itself).
        resource: resources.nodes,
        keysFor: () => {
          if (state.tickStarted) return [];
          state.tickStarted = true;
          return [TICK_KEY];
        },
      },
      {
        resource: resources.pods,
        keysFor: (obj, nodes) => {
          if (!o.enableTaintManager) return [];
          const p = obj as Pod;
          const node = p.spec?.nodeName;
          if (!node) return [];
          if (state.scheduled.has(podKey(p)) || noExecuteTaints(nodes.get(node)).length > 0) return [node];
          return [];
        },
      },
      { resource: resources.leases, selector: { namespace: NODE_LEASE_NAMESPACE }, keysFor: () => [] },
    ],
    permissions: [
      { apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'watch', 'update', 'patch', 'delete'] },
      { apiGroups: [''], resources: ['nodes/status'], verbs: ['update', 'patch'] },
      { apiGroups: [''], resources: ['pods'], verbs: ['list', 'watch', 'delete'] },
      { apiGroups: [''], resources: ['pods/status'], verbs: ['update'] },
      { apiGroups: ['coordination.svc.io'], resources: ['leases'], verbs: ['get', 'list', 'watch'] },
    ],
    async reconcile(key, ctx) {
      if (key === TICK_KEY) return tick(ctx);
      return syncNode(key, ctx);
    },
  });

  // ---- node key: NoSchedule taints and the taint manager ----

  async function syncNode(name: string, ctx: ReconcileContext<Node>): Promise<ReconcileOutcome> {
    const node = ctx.object;
    if (!node) {
      const was = state.known.get(name);
      if (was) {
        state.known.delete(name);
        state.health.delete(name);
        for (const q of state.queues.values()) q.remove(name);
        await ctx.recorder.event(was, 'Normal', 'RemovingNode', `Node ${name} event: Removing Node ${name} from Controller`);
      }
      for (const k of [...state.scheduled.keys()]) if (!ctx.cacheOf<Pod>(resources.pods).get(k)) state.scheduled.delete(k);
      ctx.lifecycle.forget();
      return done();
    }
    if (!state.known.has(name)) {
      state.known.set(name, node);
      queueOf(zoneKey(node), ctx);
      await ctx.recorder.event(node, 'Normal', 'RegisteredNode', `Node ${name} event: Registered Node ${name} in Controller`);
    } else state.known.set(name, node);
    // The node's state (machines/lifecycles/nodelifecycle.ts) from its taints, its zone and the taint
    // manager's verdicts on its pods; the pass does that state's step.
    const diff = noScheduleDiff(node);
    const now = ctx.clock.now();
    const zone = zoneKey(node);
    const queue = queueOf(zone, ctx);
    const plan = !diff.add.length && !diff.remove.length && o.enableTaintManager ? planEvictions(podsOf(ctx, name), noExecuteTaints(node), state.scheduled, now) : undefined;
    const zoneView = { zone, state: state.zoneStates.get(zone) ?? 'Initial', qps: queue.qps, queued: queue.has(name) };
    const { state: step } = ctx.lifecycle.observe(nodeLifecycle, nodeFacts(node, diff, zoneView, o.enableTaintManager, plan, now));
    if (step === 'taintingNoSchedule') {
      await swapTaints(ctx.client, name, diff.add, diff.remove, now);
      // The update comes back through the watch and queues this key again: the taint manager runs then.
      return done();
    }
    if (!plan) return done(); // without the taint manager: the zone queue deletes pods (tick)
    // The taint manager's bookkeeping holds in every state (a Ready node cancels what was scheduled).
    for (const k of plan.drop) state.scheduled.delete(k);
    for (const pod of plan.cancel) {
      state.scheduled.delete(podKey(pod));
      void ctx.recorder.event(pod, 'Normal', 'TaintManagerEviction', `Cancelling deletion of Pod ${podKey(pod)}`);
    }
    for (const [pod, eviction] of plan.wait) state.scheduled.set(podKey(pod), eviction);
    if (step === 'noExecute.evicting') await evictNow(node, plan.deleteNow, ctx);
    return plan.nextAt === Infinity ? done() : requeueAfter(Math.max(0, plan.nextAt - now));
  }

  /** Taint-based eviction: the pods the taint manager judged to go now. */
  async function evictNow(node: Node, evict: readonly Pod[], ctx: ReconcileContext<Node>): Promise<void> {
    // Every due pod at once: the established taint manager fires each pod's eviction from its own
    // timer (its 8 workers handle node and pod updates, not the deletions), so a failed node's pods
    // go together; in rounds of 8, each round waited for the slowest delete, and on a loaded
    // process those rounds were most of the time from the end of the toleration to the last
    // deletion. The Events are not waited for (the recorder logs a failed one).
    await Promise.all(
      evict.map(async (pod) => {
        void ctx.recorder.event(pod, 'Normal', 'TaintManagerEviction', `Marking for deletion Pod ${podKey(pod)}`);
        await deletePod(ctx.client, pod);
      }),
    );
    if (evict.length) ctx.logger.info({ node: node.metadata.name, pods: evict.length, taints: noExecuteTaints(node).map((t) => t.key) }, 'evicted pods from a node with NoExecute taints');
  }

  // ---- `:tick`: the monitor pass and the zones' queues ----

  async function tick(ctx: ReconcileContext<Node>): Promise<ReconcileOutcome> {
    const now = ctx.clock.now();
    if (now >= state.lastMonitorAt + o.nodeMonitorPeriodMs) {
      state.lastMonitorAt = now;
      await monitorNodeHealth(ctx);
    }
    let wait = state.lastMonitorAt + o.nodeMonitorPeriodMs - ctx.clock.now();
    for (const [zone, q] of state.queues) {
      const again = await q.try((item) => (o.enableTaintManager ? taintNode(item.name, ctx) : evictPods(item.name, ctx, zone)));
      if (again !== undefined) wait = Math.min(wait, Math.max(again, EVICTION_PERIOD_MS));
    }
    return requeueAfter(Math.max(0, wait));
  }

  async function monitorNodeHealth(ctx: ReconcileContext<Node>): Promise<void> {
    const now = ctx.clock.now();
    const leases = ctx.cacheOf<Lease>(resources.leases);
    const nodes = ctx.cache.list();
    const zones = new Map<string, (Condition | undefined)[]>();
    for (const cached of nodes) {
      const name = cached.metadata.name ?? '';
      let node = cached;
      const saved = state.health.get(name);
      const d = decideHealth(node, saved, leases.get(`${NODE_LEASE_NAMESPACE}/${name}`), now, o);
      if (d.writeConditions) {
        try {
          node = await ctx.client.updateStatus<Node>(resources.nodes, '', { ...node, status: { ...(node.status ?? {}), conditions: d.writeConditions } });
          ctx.logger.info({ node: name, gracePeriodMs: d.gracePeriodMs }, 'node stopped posting status: its conditions are now Unknown');
        } catch (e) {
          // A newer status (or a conflict) is looked at on the next pass.
          if (!(e instanceof ApiError)) throw e;
          ctx.logger.debug({ node: name, err: e.message }, 'could not mark the node Unknown; next pass');
          continue;
        }
      }
      state.health.set(name, d.health);
      const zone = zoneKey(node);
      queueOf(zone, ctx);
      if (!excludedFromDisruption(node, o.featureGates)) {
        const list = zones.get(zone) ?? [];
        list.push(d.currentReady);
        zones.set(zone, list);
      }
      if (!d.currentReady) continue;
      if (o.enableTaintManager) await processTaintBasedEviction(node, d.observedReady.status ?? 'Unknown', ctx);
      else processPodEvictionTimeout(node, d.observedReady.status ?? 'Unknown', d.health, now);
      if (d.currentReady.status !== 'True' && d.observedReady.status === 'True') {
        await ctx.recorder.event(node, 'Normal', 'NodeNotReady', `Node ${name} status is now: NodeNotReady`);
        await markPodsNotReady(ctx, name);
      }
    }
    await handleDisruption(ctx, zones, nodes);
  }

  async function processTaintBasedEviction(node: Node, observed: string, ctx: ReconcileContext<Node>): Promise<void> {
    const name = node.metadata.name ?? '';
    const q = queueOf(zoneKey(node), ctx);
    if (observed === 'False' || observed === 'Unknown') {
      const [want, other] = observed === 'False' ? [NOT_READY_NO_EXECUTE, UNREACHABLE_NO_EXECUTE] : [UNREACHABLE_NO_EXECUTE, NOT_READY_NO_EXECUTE];
      // Already tainted the other way: swap at once, the rate limit was paid when it was tainted.
      if (hasTaint(node, other)) await swapTaints(ctx.client, name, [want], [other], ctx.clock.now());
      else if (!hasTaint(node, want) && q.add(name, node.metadata.uid ?? '')) ctx.logger.info({ node: name, ready: observed, zone: zoneName(zoneKey(node)) }, 'node is not ready: queued for its NoExecute taint');
      return;
    }
    if (observed === 'True') await markNodeAsReachable(node, ctx);
  }

  async function markNodeAsReachable(node: Node, ctx: ReconcileContext<Node>): Promise<void> {
    const name = node.metadata.name ?? '';
    for (const q of state.queues.values()) q.remove(name);
    if (hasTaint(node, NOT_READY_NO_EXECUTE) || hasTaint(node, UNREACHABLE_NO_EXECUTE)) {
      await swapTaints(ctx.client, name, [], [NOT_READY_NO_EXECUTE, UNREACHABLE_NO_EXECUTE], ctx.clock.now());
      ctx.logger.info({ node: name }, 'node is reachable: its NoExecute taints are lifted');
    }
  }

  function processPodEvictionTimeout(node: Node, observed: string, health: NodeHealth, now: number): void {
    const name = node.metadata.name ?? '';
    const q = state.queues.get(zoneKey(node));
    if (!q) return;
    if (observed === 'False' && now > health.readyTransitionTimestamp + o.podEvictionTimeoutMs) q.add(name, node.metadata.uid ?? '');
    else if (observed === 'Unknown' && now > health.probeTimestamp + o.podEvictionTimeoutMs) q.add(name, node.metadata.uid ?? '');
    else if (observed === 'True') q.remove(name);
  }

  /** The queue's work with the taint manager: the NoExecute taint matching Ready now. */
  async function taintNode(name: string, ctx: ReconcileContext<Node>): Promise<TryResult> {
    const node = ctx.cache.get(name);
    if (!node) return { done: true };
    const ready = readyCondition(node)?.status;
    let add: Taint;
    let remove: Taint;
    if (ready === 'False') [add, remove] = [NOT_READY_NO_EXECUTE, UNREACHABLE_NO_EXECUTE];
    else if (ready === 'Unknown') [add, remove] = [UNREACHABLE_NO_EXECUTE, NOT_READY_NO_EXECUTE];
    else return { done: true };
    try {
      await swapTaints(ctx.client, name, [add], [remove], ctx.clock.now());
      ctx.logger.info({ node: name, taint: add.key, zone: zoneName(zoneKey(node)) }, 'tainted a node NoExecute');
      return { done: true };
    } catch (e) {
      ctx.logger.warn({ node: name, err: (e as Error).message }, 'could not taint the node; retrying');
      return { done: false, retryMs: RETRY_MS };
    }
  }

  /** The queue's work without the taint manager: delete the node's pods (not DaemonSet pods). */
  async function evictPods(name: string, ctx: ReconcileContext<Node>, zone: string): Promise<TryResult> {
    const node = ctx.cache.get(name);
    if (!node) return { done: true };
    try {
      await ctx.recorder.event(node, 'Normal', 'DeletingAllPods', `Deleting all Pods from Node ${name}.`);
      for (const pod of podsOf(ctx, name)) {
        if (pod.spec?.nodeName !== name) continue;
        if (pod.status?.reason !== 'NodeLost') {
          const status = { ...(pod.status ?? {}), reason: 'NodeLost', message: `Node ${name} which was running pod ${pod.metadata.name} is unresponsive` };
          try {
            await ctx.client.updateStatus<Pod>(resources.pods, pod.metadata.namespace ?? '', { ...pod, status });
          } catch (e) {
            if (!(e instanceof ApiError && (e.code === 404 || e.code === 409))) throw e;
          }
        }
        if (pod.metadata.deletionTimestamp || isDaemonSetPod(pod)) continue;
        await ctx.recorder.event(pod, 'Normal', 'NodeControllerEviction', `Marking for deletion Pod ${pod.metadata.name} from Node ${name}`);
        await deletePod(ctx.client, pod);
      }
      ctx.logger.info({ node: name, zone: zoneName(zone) }, 'deleted the pods of a node not ready for --pod-eviction-timeout');
      return { done: true };
    } catch (e) {
      ctx.logger.warn({ node: name, err: (e as Error).message }, 'could not delete the pods of the node; retrying');
      return { done: false, retryMs: RETRY_MS };
    }
  }

  async function markPodsNotReady(ctx: ReconcileContext<Node>, name: string): Promise<void> {
    const stamp = rfc3339(ctx.clock.now());
    const writes: (() => Promise<void>)[] = [];
    for (const pod of podsOf(ctx, name)) {
      if (pod.spec?.nodeName !== name) continue;
      const conditions = pod.status?.conditions ?? [];
      const i = conditions.findIndex((c) => c.type === 'Ready');
      if (i < 0 || conditions[i]!.status === 'False') continue;
      const next = conditions.map((c, j) => (j === i ? { ...c, status: 'False', lastTransitionTime: stamp } : c));
      writes.push(async () => {
        try {
          await ctx.client.updateStatus<Pod>(resources.pods, pod.metadata.namespace ?? '', { ...pod, status: { ...pod.status, conditions: next } });
        } catch (e) {
          // A pod changed or gone meanwhile: its next status says what it is.
          if (!(e instanceof ApiError)) throw e;
        }
      });
    }
    for (let i = 0; i < writes.length; i += EVICTION_WORKERS) await Promise.all(writes.slice(i, i + EVICTION_WORKERS).map((w) => w()));
  }

  async function handleDisruption(ctx: ReconcileContext<Node>, zones: Map<string, (Condition | undefined)[]>, nodes: readonly Node[]): Promise<void> {
    const plan = planDisruption(state.zoneStates, zones, o.unhealthyZoneThreshold, rates);
    state.zoneStates = plan.states;
    for (const [zone, qps] of plan.rates) queueOf(zone, ctx).swapLimiter(qps);
    for (const [zone, s] of plan.changed) ctx.logger.info({ zone: zoneName(zone), state: s }, `zone ${zoneName(zone)} is now in state ${s}`);
    if (plan.enterMasterDisruption) {
      ctx.logger.info('every node is not ready: entering master disruption mode (no evictions)');
      for (const node of nodes) {
        if (o.enableTaintManager) await markNodeAsReachable(node, ctx);
        else for (const q of state.queues.values()) q.remove(node.metadata.name ?? '');
      }
    }
    if (plan.exitMasterDisruption) {
      ctx.logger.info('some nodes are ready again: leaving master disruption mode');
      const now = ctx.clock.now();
      for (const [name, h] of state.health) state.health.set(name, { ...h, probeTimestamp: now, readyTransitionTimestamp: now });
    }
  }

  return {
    ...inner,
    start(host) {
      state = new LifecycleState();
      return inner.start(host);
    },
  };
}

/** Deletes a pod with its own grace period (404: already gone). */
async function deletePod(client: ApiClient, pod: Pod): Promise<void> {
  try {
    await client.delete(resources.pods, pod.metadata.namespace ?? '', pod.metadata.name ?? '');
  } catch (e) {
    if (!(e instanceof ApiError && e.code === 404)) throw e;
  }
}

