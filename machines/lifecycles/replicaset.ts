/**
 * The lifecycle of a ReplicaSet (and of a ReplicationController: the same controller logic, its
 * own chart), as the replicaset controller (controllers/replicaset/) sees it on each reconcile:
 * what it observed of the owner and its pods decides the state, in the order below; the reconcile
 * then does that state's one step, and the pods' watch events bring it back.
 *
 *   terminating              the owner is being deleted: no pod made or removed; status still counted
 *   waitingOnExpectations    its own creates or deletes are not in its cache yet: counts not acted on
 *   creatingInBatches        fewer pods than replicas: creating the missing ones in slow-start
 *                            batches of 1, 2, 4 ... (at most 500 a sync; a failed batch stops it)
 *   deletingByRank           more pods than replicas: deleting the surplus, least useful first
 *                            (unscheduled, pending, not ready, doubled on a node, youngest ...)
 *   satisfied                as many active pods as replicas: the status counts them
 */
import { setup } from 'xstate';
import { defineLifecycle, type LifecycleStateMeta } from '../../src/runtime/lifecycle.js';

/** What the reconcile observed (controllers/replicaset/sync.ts `replicaFacts` computes it with the controller's rules). */
export interface ReplicaSetFacts {
  /** metadata.deletionTimestamp is set. */
  terminating: boolean;
  /** Every create and delete of this owner is seen in the cache (or timed out). */
  expectationsSatisfied: boolean;
  /** Creates and deletes not yet seen. */
  pendingCreates: number;
  pendingDeletes: number;
  /** spec.replicas. */
  replicas: number;
  /** Active pods it controls (after adoption and release). */
  pods: number;
  ready: number;
  available: number;
  /** Pods this sync creates (the shortfall, at most 500), and the slow-start batch sizes. */
  toCreate: number;
  batches: number[];
  /** Pods this sync deletes (the surplus, at most 500). */
  toDelete: number;
}

type Meta = LifecycleStateMeta<ReplicaSetFacts>;
const meta = (m: Meta): Meta => m;
const counts = (f: ReplicaSetFacts) => `${f.pods} of ${f.replicas} pods, ${f.ready} ready, ${f.available} available`;

export const replicaSetLifecycleMachine = setup({
  types: { events: {} as { type: 'observed'; facts: ReplicaSetFacts } },
  guards: {
    terminating: ({ event }) => event.facts.terminating,
    expectationsPending: ({ event }) => !event.facts.expectationsSatisfied,
    short: ({ event }) => event.facts.toCreate > 0,
    surplus: ({ event }) => event.facts.toDelete > 0,
  },
}).createMachine({
  id: 'replicaset',
  initial: 'observing',
  on: {
    observed: [
      { guard: 'terminating', target: '.terminating' },
      { guard: 'expectationsPending', target: '.waitingOnExpectations' },
      { guard: 'short', target: '.creatingInBatches' },
      { guard: 'surplus', target: '.deletingByRank' },
      { target: '.satisfied' },
    ],
  },
  states: {
    observing: { description: 'not reconciled yet' },
    terminating: {
      description: 'being deleted: no pod made or removed, the status still counts its pods',
      meta: meta({ holds: (f) => `deletionTimestamp set; ${counts(f)}` }),
    },
    waitingOnExpectations: {
      description: 'its own creates or deletes are not in its cache yet: the counts are not acted on again',
      meta: meta({ holds: (f) => `waiting: ${f.pendingCreates} create${f.pendingCreates === 1 ? '' : 's'} and ${f.pendingDeletes} delete${f.pendingDeletes === 1 ? '' : 's'} not yet seen; ${counts(f)}` }),
    },
    creatingInBatches: {
      description: 'creating the missing pods from the template in slow-start batches of 1, 2, 4 ... (at most 500 a sync)',
      meta: meta({ holds: (f) => `${f.pods} of ${f.replicas} pods: creating ${f.toCreate} in batches of ${f.batches.join(', ')}` }),
    },
    deletingByRank: {
      description: 'deleting the surplus pods, least useful first (unscheduled, pending, not ready, doubled on a node, youngest)',
      meta: meta({ holds: (f) => `${f.pods} pods for ${f.replicas} replicas: deleting ${f.toDelete} by rank` }),
    },
    satisfied: {
      tags: ['resting'],
      description: 'as many active pods as replicas: the status counts them ready and available',
      meta: meta({ holds: counts }),
    },
  },
});

export const replicaSetLifecycle = defineLifecycle<ReplicaSetFacts>('replicaset', 'ReplicaSet', replicaSetLifecycleMachine);

/** The ReplicationController runs the replicaset controller's logic: the same machine, its own chart and tracking. */
export const replicationControllerLifecycle = defineLifecycle<ReplicaSetFacts>('replicationcontroller', 'ReplicationController', replicaSetLifecycleMachine);
