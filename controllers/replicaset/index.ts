/**
 * The replicaset controller (and, with its own flavour, replicationcontroller): keep
 * `spec.replicas` pods of the template running.
 *
 * - Watches: ReplicaSets (or ReplicationControllers). Owns: Pods (a pod's change queues its
 *   controller). Triggers: orphan pods, to the owners whose selector matches them (adoption).
 * - Writes: pods (created from the template in slow-start batches of 1, 2, 4 ..., at most 500 per
 *   sync; surplus deleted least useful first), pod ownerReferences (adopt and release by
 *   selector), the owner's status (replicas, fullyLabeledReplicas, readyReplicas,
 *   availableReplicas after minReadySeconds, observedGeneration, ReplicaFailure).
 * - Events: SuccessfulCreate, SuccessfulDelete, FailedCreate, FailedDelete.
 * - Lifecycle: machines/lifecycles/replicaset.ts names the state each sync observes (terminating,
 *   waiting on expectations, creating in slow-start batches, deleting by rank, satisfied) and the
 *   sync takes that state's one step.
 * - Guarantees: while its own creations or deletions are not yet in its cache (expectations), a
 *   key's counts are not acted on again, so a slow watch never makes a pod twice; a pod being
 *   deleted no longer counts; an owner being deleted makes no pods.
 */
import type { Pod, ReplicaSet } from '../../src/api/generated/kinds.js';
import { labelSelectorFromObject, type LabelSelector } from '../../src/api/labels.js';
import type { SvcObject } from '../../src/api/types.js';
import { resources } from '../../src/client/typed.js';
import { ApiError, type ResourceRef } from '../../src/client/types.js';
import { defineController, type ControllerDefinition, type ReconcileContext } from '../../src/runtime/define-controller.js';
import { done, requeueAfter, type ReconcileOutcome } from '../../src/runtime/outcome.js';
import { claim, controllerRefOf, controllerRefTo } from '../../src/runtime/owner-references.js';
import { Expectations } from '../internal/expectations.js';
import { isPodActive } from '../internal/pod-state.js';
import { slowStartBatches } from '../internal/pod-template.js';
import type { LifecycleDefinition } from '../../src/runtime/lifecycle.js';
import { replicaSetLifecycle, type ReplicaSetFacts } from '../../machines/lifecycles/replicaset.js';
import { podFor, podsToDelete, replicaFacts, replicaStatus, sameStatus, type ReplicaOwner } from './sync.js';

export interface Flavour {
  name: string;
  ref: ResourceRef;
  /** The owner's selector as a matcher; undefined when it has none (it then manages nothing). */
  selectorOf(owner: ReplicaOwner): LabelSelector | undefined;
  /** Its objects' lifecycle (the same machine for both kinds, charted and tracked per controller). */
  lifecycle: LifecycleDefinition<ReplicaSetFacts>;
}

const REPLICASET: Flavour = {
  name: 'replicaset',
  ref: resources.replicasets,
  selectorOf: (o) => {
    const s = (o as ReplicaSet).spec?.selector;
    return s && (s.matchLabels || s.matchExpressions) ? labelSelectorFromObject(s) : undefined;
  },
  lifecycle: replicaSetLifecycle,
};

export function replicaSetController(concurrency: number): ControllerDefinition<ReplicaSet> {
  return replicaController(REPLICASET, concurrency) as ControllerDefinition<ReplicaSet>;
}

/** The controller for one flavour of replica owner (ReplicaSet here; ReplicationController in its own folder). */
export function replicaController(flavour: Flavour, concurrency: number): ControllerDefinition<ReplicaOwner> {
  let expectations: Expectations | undefined;
  return defineController<ReplicaOwner>({
    name: flavour.name,
    watches: flavour.ref,
    owns: [resources.pods],
    concurrency,
    lifecycle: flavour.lifecycle as LifecycleDefinition<unknown>,
    triggers: [
      {
        resource: resources.pods,
        // Orphans only (controlled pods reach their owner through `owns`).
        keysFor: (obj, owners) => {
          if (controllerRefOf(obj)) return [];
          const ns = obj.metadata.namespace ?? '';
          return owners
            .byIndex('namespace', ns)
            .filter((o) => flavour.selectorOf(o)?.matches(obj.metadata.labels))
            .map((o) => `${ns}/${o.metadata.name}`);
        },
      },
    ],
    async reconcile(key, ctx) {
      expectations ??= new Expectations(ctx.clock);
      return sync(flavour, expectations, key, ctx);
    },
  });
}

/** Pods without a controller, by namespace: the only ones besides its own that an owner may adopt. */
const ORPHAN_INDEX = 'replicaset.orphans';
const orphanIndexed = new WeakSet<object>();

async function sync(flavour: Flavour, expectations: Expectations, key: string, ctx: ReconcileContext<ReplicaOwner>): Promise<ReconcileOutcome> {
  const owner = ctx.object;
  if (!owner) {
    expectations.forget(key);
    ctx.lifecycle.forget();
    return done();
  }
  const ns = owner.metadata.namespace ?? '';
  const podCache = ctx.cacheOf<Pod>(resources.pods);
  const selector = flavour.selectorOf(owner);
  if (!selector) {
    ctx.logger.warn('no selector: it manages no pods');
    return done();
  }
  const mine = new Map(podCache.byIndex('owner', owner.metadata.uid ?? '').map((p) => [p.metadata.uid ?? '', p]));
  const satisfied = expectations.satisfied(key, {
    state: (uid) => {
      const p = mine.get(uid);
      return !p ? 'absent' : p.metadata.deletionTimestamp ? 'deleting' : 'present';
    },
  });
  // The claim rules look only at pods this owner controls and at orphans (a pod controlled by another
  // owner is never claimed): two index lookups instead of every pod of the namespace on each sync.
  if (!orphanIndexed.has(podCache)) {
    podCache.addIndex(ORPHAN_INDEX, (p) => (controllerRefOf(p) ? [] : [p.metadata.namespace ?? '']));
    orphanIndexed.add(podCache);
  }
  const candidates = new Map<string, Pod>();
  for (const p of [...mine.values(), ...podCache.byIndex(ORPHAN_INDEX, ns)]) if (isPodActive(p)) candidates.set(p.metadata.uid ?? '', p);
  const { owned } = await claim<Pod>(ctx.client, resources.pods, owner, flavour.ref, selector, [...candidates.values()]);

  const now = ctx.clock.now();
  const counted = replicaStatus(owner, owned, now, undefined);
  const pending = expectations.outstanding(key);
  const facts = replicaFacts(owner, owned.length, counted.status, { satisfied, creates: pending.creates, deletes: pending.deletes });
  const { state } = ctx.lifecycle.observe(flavour.lifecycle, facts);

  // The one step of the state observed (machines/lifecycles/replicaset.ts decides it).
  let failure: { reason: string; message: string } | undefined;
  switch (state) {
    case 'creatingInBatches':
      failure = await createInBatches(flavour, expectations, key, owner, facts.toCreate, ctx);
      break;
    case 'deletingByRank':
      failure = await deleteByRank(expectations, key, owner, podsToDelete(owned, facts.toDelete, now), ctx);
      break;
    default:
    // terminating, waitingOnExpectations, satisfied: nothing to create or delete.
  }

  // A failure only adds the ReplicaFailure condition; the counts are the same pods'.
  const { status, nextAvailableAt } = failure ? replicaStatus(owner, owned, now, failure) : counted;
  if (!sameStatus(owner.status, status)) {
    try {
      await ctx.client.updateStatus(flavour.ref, ns, { ...owner, status: { ...owner.status, ...status } } as SvcObject);
    } catch (e) {
      // The owner changed meanwhile: its new version queues the key again.
      if (!(e instanceof ApiError && (e.code === 409 || e.code === 404))) throw e;
    }
  }
  if (failure) throw new Error(failure.message);
  return nextAvailableAt !== undefined ? requeueAfter(Math.max(1, nextAvailableAt - now) + 1) : done();
}

/** Creates `count` pods from the template in slow-start batches; returns the failure to report, if any. */
async function createInBatches(
  flavour: Flavour,
  expectations: Expectations,
  key: string,
  owner: ReplicaOwner,
  count: number,
  ctx: ReconcileContext<ReplicaOwner>,
): Promise<{ reason: string; message: string } | undefined> {
  const ns = owner.metadata.namespace ?? '';
  const ref = controllerRefTo(owner, flavour.ref);
  for (const size of slowStartBatches(count)) {
    const results = await Promise.allSettled(Array.from({ length: size }, () => ctx.client.create<Pod>(resources.pods, ns, podFor(owner, ref))));
    let failed: unknown;
    for (const r of results) {
      if (r.status === 'fulfilled') {
        expectations.created(key, r.value.metadata.uid ?? '');
        void ctx.recorder.event(owner, 'Normal', 'SuccessfulCreate', `Created pod: ${r.value.metadata.name}`);
      } else failed ??= r.reason;
    }
    if (failed !== undefined) {
      const message = (failed as Error).message;
      void ctx.recorder.event(owner, 'Warning', 'FailedCreate', `Error creating: ${message}`);
      // A namespace being deleted refuses pods: that is no failure of ours.
      if (failed instanceof ApiError && failed.code === 403 && /being terminated/.test(message)) return undefined;
      return { reason: 'FailedCreate', message };
    }
  }
  return undefined;
}

/** Deletes `victims` (the surplus, ranked); returns the failure to report, if any. */
async function deleteByRank(
  expectations: Expectations,
  key: string,
  owner: ReplicaOwner,
  victims: readonly Pod[],
  ctx: ReconcileContext<ReplicaOwner>,
): Promise<{ reason: string; message: string } | undefined> {
  const ns = owner.metadata.namespace ?? '';
  const results = await Promise.allSettled(
    victims.map((p) => ctx.client.delete(resources.pods, ns, p.metadata.name ?? '', { preconditions: { uid: p.metadata.uid ?? '' } })),
  );
  let failed: unknown;
  results.forEach((r, i) => {
    const p = victims[i]!;
    if (r.status === 'fulfilled' || (r.reason instanceof ApiError && (r.reason.code === 404 || r.reason.code === 409))) {
      expectations.deleted(key, p.metadata.uid ?? '');
      if (r.status === 'fulfilled') void ctx.recorder.event(owner, 'Normal', 'SuccessfulDelete', `Deleted pod: ${p.metadata.name}`);
    } else failed ??= r.reason;
  });
  if (failed !== undefined) {
    const message = (failed as Error).message;
    void ctx.recorder.event(owner, 'Warning', 'FailedDelete', `Error deleting: ${message}`);
    return { reason: 'FailedDelete', message };
  }
  return undefined;
}
