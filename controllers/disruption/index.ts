/**
 * The disruption controller: keeps each PodDisruptionBudget's status (what the eviction
 * subresource of pods reads to allow or refuse an eviction).
 *
 * - Watches: PodDisruptionBudgets. Triggers: pods (the budgets in their namespace whose selector
 *   matches them) and the pods' controllers (ReplicaSets, Deployments, StatefulSets,
 *   ReplicationControllers: every budget of their namespace, for the expected pod count).
 * - Writes: the budget's status (currentHealthy, desiredHealthy, expectedPods, disruptionsAllowed,
 *   disruptedPods, observedGeneration, the DisruptionAllowed condition).
 * - Rules: sync.ts. The expected count is the sum of the pods' controllers' replicas (a Deployment's
 *   when it owns the ReplicaSet); a pod without a controller counts as one.
 * - Timers: an eviction's disruptedPods entry that expires is a requeue at that time.
 */
import type { Deployment, Pod, PodDisruptionBudget, ReplicaSet } from '../../src/api/generated/kinds.js';
import { labelSelectorFromObject } from '../../src/api/labels.js';
import type { SvcObject } from '../../src/api/types.js';
import type { IndexedCache } from '../../src/client/informer-types.js';
import { resources } from '../../src/client/typed.js';
import { ApiError, type ResourceRef } from '../../src/client/types.js';
import { defineController, type ControllerDefinition, type ReconcileContext } from '../../src/runtime/define-controller.js';
import { done, requeueAfter } from '../../src/runtime/outcome.js';
import { controllerRefOf } from '../../src/runtime/owner-references.js';
import { budgetStatus, needsExpectedCount } from './sync.js';

const CONTROLLER_KINDS: Record<string, ResourceRef> = {
  ReplicaSet: resources.replicasets,
  Deployment: resources.deployments,
  StatefulSet: resources.statefulsets,
  ReplicationController: resources.replicationcontrollers,
};

function matches(pdb: PodDisruptionBudget, obj: SvcObject): boolean {
  // policy/v1: no selector selects no pods, an empty one every pod (v1beta1's empty selector is
  // stored as a requirement no pod meets, src/api/kinds/policy/poddisruptionbudget.ts).
  const sel = pdb.spec?.selector;
  if (!sel) return false;
  return labelSelectorFromObject(sel).matches(obj.metadata.labels);
}

/** The replicas the pods' controllers ask for (each controller once; a Deployment over its ReplicaSets). */
function expectedCount(pods: readonly Pod[], ctx: ReconcileContext<PodDisruptionBudget>): number {
  const seen = new Map<string, number>();
  let loose = 0;
  for (const p of pods) {
    let ref = controllerRefOf(p);
    let owner: SvcObject | undefined;
    if (ref && CONTROLLER_KINDS[ref.kind]) {
      owner = ctx.cacheOf(CONTROLLER_KINDS[ref.kind]!).get(`${p.metadata.namespace}/${ref.name}`);
      const up = owner ? controllerRefOf(owner) : undefined;
      if (owner && up?.kind === 'Deployment') {
        const d = ctx.cacheOf<Deployment>(resources.deployments).get(`${p.metadata.namespace}/${up.name}`);
        if (d) {
          owner = d;
          ref = up;
        }
      }
    }
    if (!ref || !owner) {
      loose++;
      continue;
    }
    seen.set(owner.metadata.uid ?? ref.uid, Number((owner as ReplicaSet).spec?.replicas ?? 1));
  }
  return [...seen.values()].reduce((a, b) => a + b, loose);
}

export function disruptionController(concurrency: number): ControllerDefinition<PodDisruptionBudget> {
  const namespaceKeys = (obj: SvcObject, budgets: IndexedCache<PodDisruptionBudget>, onlyMatching: boolean) => {
    const ns = obj.metadata.namespace ?? '';
    return budgets
      .byIndex('namespace', ns)
      .filter((b) => !onlyMatching || matches(b, obj))
      .map((b) => `${ns}/${b.metadata.name}`);
  };
  return defineController<PodDisruptionBudget>({
    name: 'disruption',
    watches: resources.poddisruptionbudgets,
    concurrency,
    triggers: [
      { resource: resources.pods, keysFor: (p, budgets) => namespaceKeys(p, budgets, true) },
      ...Object.values(CONTROLLER_KINDS).map((resource) => ({ resource, keysFor: (o: SvcObject, budgets: IndexedCache<PodDisruptionBudget>) => namespaceKeys(o, budgets, false) })),
    ],
    async reconcile(key, ctx) {
      const pdb = ctx.object;
      if (!pdb || pdb.metadata.deletionTimestamp) return done();
      const now = ctx.clock.now();
      const pods = ctx.cacheOf<Pod>(resources.pods).byIndex('namespace', pdb.metadata.namespace ?? '').filter((p) => matches(pdb, p));
      const expected = needsExpectedCount(pdb) ? expectedCount(pods, ctx) : pods.length;
      const { status, nextExpiry } = budgetStatus(pdb, pods, expected, now);
      const strip = (s: PodDisruptionBudget['status']) => JSON.stringify({ ...s, conditions: (s?.conditions ?? []).map((c) => [c.type, c.status, c.reason]) });
      if (strip(pdb.status) !== strip(status)) {
        try {
          await ctx.client.updateStatus(resources.poddisruptionbudgets, pdb.metadata.namespace ?? '', { ...pdb, status } as SvcObject);
        } catch (e) {
          // An eviction changed it meanwhile: its event brings the key back.
          if (!(e instanceof ApiError && (e.code === 409 || e.code === 404))) throw e;
        }
      }
      return nextExpiry !== undefined ? requeueAfter(Math.max(1, nextExpiry - now + 1)) : done();
    },
  });
}
