/**
 * The daemonset controller: one pod of the DaemonSet on every node that should run it.
 *
 * - Watches: DaemonSets. Owns: Pods, ControllerRevisions. Triggers: Nodes (every DaemonSet: a node
 *   came, went, or changed labels or taints).
 * - Writes: pods pinned to their node (required node affinity on `metadata.name`, daemon
 *   tolerations added), deletes of pods on nodes that should not run one, of extra pods on a node
 *   and of failed pods (replaced on the next pass); ControllerRevisions of the template (history
 *   kept to `revisionHistoryLimit`); the status (desired, current, misscheduled, ready, available,
 *   unavailable, updated, observedGeneration).
 * - RollingUpdate: pods of an older revision are deleted (and so replaced) while at most
 *   `maxUnavailable` nodes are without an available daemon pod; OnDelete: only pods deleted by
 *   someone else come back on the new template.
 * - Lifecycle: machines/lifecycles/daemonset.ts names the state each pass observes (waiting on
 *   expectations, placing per node, rolling update replacing or waiting for available, held by
 *   OnDelete, up to date) and the pass takes that state's step.
 * - Guarantees: expectations as the replicaset controller's (a slow watch never puts two pods on a node).
 */
import type { ControllerRevision, DaemonSet, Node, Pod } from '../../src/api/generated/kinds.js';
import { labelSelectorFromObject } from '../../src/api/labels.js';
import type { SvcObject } from '../../src/api/types.js';
import { resources } from '../../src/client/typed.js';
import { ApiError } from '../../src/client/types.js';
import { defineController, type ControllerDefinition, type ReconcileContext } from '../../src/runtime/define-controller.js';
import { done, requeueAfter, type ReconcileOutcome } from '../../src/runtime/outcome.js';
import { claim, controllerRefTo } from '../../src/runtime/owner-references.js';
import { Expectations } from '../internal/expectations.js';
import { availableAt } from '../internal/pod-state.js';
import { currentRevision, pruneRevisions, revisionsOf } from '../internal/revisions.js';
import { daemonSetLifecycle } from '../../machines/lifecycles/daemonset.js';
import { daemonPlan, daemonPod, daemonStatus, nodeOf, shouldRun } from './sync.js';

export function daemonSetController(concurrency: number): ControllerDefinition<DaemonSet> {
  let expectations: Expectations | undefined;
  return defineController<DaemonSet>({
    name: 'daemonset',
    watches: resources.daemonsets,
    owns: [resources.pods, resources.controllerrevisions],
    concurrency,
    lifecycle: daemonSetLifecycle,
    triggers: [{ resource: resources.nodes, keysFor: (_node, sets) => sets.list().map((d) => `${d.metadata.namespace}/${d.metadata.name}`) }],
    async reconcile(key, ctx) {
      expectations ??= new Expectations(ctx.clock);
      return sync(key, ctx, expectations);
    },
  });
}

async function sync(key: string, ctx: ReconcileContext<DaemonSet>, expectations: Expectations): Promise<ReconcileOutcome> {
  const ds = ctx.object;
  if (!ds || ds.metadata.deletionTimestamp) {
    if (!ds) expectations.forget(key);
    ctx.lifecycle.forget();
    return done();
  }
  if (!ds.spec?.selector) return done();
  const ns = ds.metadata.namespace ?? '';
  const now = ctx.clock.now();
  const revisionCache = ctx.cacheOf<ControllerRevision>(resources.controllerrevisions);
  const revisions = revisionsOf(revisionCache, ds);
  const current = await currentRevision(ctx.client, ds, resources.daemonsets, ds.spec.template, revisions);

  const podCache = ctx.cacheOf<Pod>(resources.pods);
  const mine = new Map(podCache.byIndex('owner', ds.metadata.uid ?? '').map((p) => [p.metadata.uid ?? '', p]));
  const satisfied = expectations.satisfied(key, { state: (uid) => (!mine.get(uid) ? 'absent' : mine.get(uid)!.metadata.deletionTimestamp ? 'deleting' : 'present') });
  const { owned } = await claim<Pod>(ctx.client, resources.pods, ds, resources.daemonsets, labelSelectorFromObject(ds.spec.selector), podCache.byIndex('namespace', ns));

  const nodes = ctx.cacheOf<Node>(resources.nodes).list();
  const eligible = new Set(nodes.filter((n) => shouldRun(ds, n)).map((n) => n.metadata.name ?? ''));
  const byNode = new Map<string, Pod[]>();
  for (const p of owned) {
    if (p.metadata.deletionTimestamp) continue;
    const node = nodeOf(p) ?? '';
    if (!byNode.has(node)) byNode.set(node, []);
    byNode.get(node)!.push(p);
  }
  for (const list of byNode.values()) list.sort((a, b) => ((a.metadata.creationTimestamp ?? '') < (b.metadata.creationTimestamp ?? '') ? -1 : 1));

  const pending = expectations.outstanding(key);
  const plan = daemonPlan(ds, eligible, byNode, current.hash, now, { satisfied, creates: pending.creates, deletes: pending.deletes });
  const { state } = ctx.lifecycle.observe(daemonSetLifecycle, plan.facts);

  // The step of the state observed (machines/lifecycles/daemonset.ts decides it): placement and
  // the rolling update's deletes go in one pass, as established; replacing deletes old pods only.
  let toCreate: string[] = [];
  let toDelete: Pod[] = [];
  switch (state) {
    case 'placing':
      toCreate = plan.toCreate;
      toDelete = [...plan.misplaced, ...plan.toReplace];
      break;
    case 'rollingUpdate.replacing':
      toDelete = plan.toReplace;
      break;
    default:
    // waitingOnExpectations, rollingUpdate.waitingForAvailable, onDeleteHeld, upToDate: nothing to do.
  }
  const ref = controllerRefTo(ds, resources.daemonsets);
  const created = await Promise.allSettled(toCreate.map((node) => ctx.client.create<Pod>(resources.pods, ns, daemonPod(ds, node, current.hash, ref))));
  for (const r of created) {
    if (r.status === 'fulfilled') {
      expectations.created(key, r.value.metadata.uid ?? '');
      void ctx.recorder.event(ds, 'Normal', 'SuccessfulCreate', `Created pod: ${r.value.metadata.name}`);
    } else if (!(r.reason instanceof ApiError && r.reason.code === 403)) throw r.reason;
  }
  for (const p of toDelete) {
    try {
      await ctx.client.delete(resources.pods, ns, p.metadata.name ?? '', { preconditions: { uid: p.metadata.uid ?? '' } });
      void ctx.recorder.event(ds, 'Normal', 'SuccessfulDelete', `Deleted pod: ${p.metadata.name}`);
    } catch (e) {
      if (!(e instanceof ApiError && (e.code === 404 || e.code === 409))) throw e;
    }
    expectations.deleted(key, p.metadata.uid ?? '');
  }

  await pruneRevisions(ctx.client, revisions, new Set([current.name]), ds.spec.revisionHistoryLimit ?? 10);
  const status = daemonStatus(ds, eligible, byNode, current.hash, now);
  const keys = ['desiredNumberScheduled', 'currentNumberScheduled', 'numberMisscheduled', 'numberReady', 'numberAvailable', 'numberUnavailable', 'updatedNumberScheduled', 'observedGeneration'] as const;
  // A counter's 0 is the same as its absence (a Protobuf write stores none, as the established JSON omits it).
  if (keys.some((k) => (ds.status?.[k] ?? 0) !== (status[k] ?? 0))) {
    await ctx.client.updateStatus(resources.daemonsets, ns, { ...ds, status } as SvcObject).catch((e: unknown) => {
      if (!(e instanceof ApiError && (e.code === 404 || e.code === 409))) throw e;
    });
  }
  // A pod waiting out minReadySeconds changes the counts then.
  const next = owned.map((p) => availableAt(p, ds.spec?.minReadySeconds ?? 0)).filter((t): t is number => t !== undefined && t > now);
  return next.length ? requeueAfter(Math.min(...next) - now + 1) : done();
}
