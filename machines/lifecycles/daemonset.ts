/**
 * The lifecycle of a DaemonSet, as the daemonset controller (controllers/daemonset/) sees it on
 * each reconcile: what it observed of the set, the nodes and its pods decides the state, in the
 * order below; the reconcile then does that state's step, and the pods' and nodes' watch events
 * bring it back. A rolling update is a dance of two states: an old pod is deleted (`replacing`),
 * its node is then without one (`placing` creates the new one), and while maxUnavailable nodes are
 * without an available pod the rest wait (`waitingForAvailable`).
 *
 *   waitingOnExpectations    its own creates or deletes are not in its cache yet: nothing acted on
 *   placing                  per node: creating the pod on nodes that should run one and have none;
 *                            deleting pods on nodes that should not, extra pods on a node and Failed
 *                            ones (with the rolling update's deletes the budget allows, in the same pass)
 *   rollingUpdate
 *     replacing              RollingUpdate: deleting old-revision pods while at most maxUnavailable
 *                            nodes are without an available daemon pod (unavailable ones first)
 *     waitingForAvailable    RollingUpdate: old pods left, but maxUnavailable nodes are already without an available pod
 *   onDeleteHeld             OnDelete: pods of an older revision stay until someone deletes them
 *   upToDate                 one pod of the current revision on every node that should run one
 *
 * (maxSurge is not drawn: the DaemonSet API here has no maxSurge, so a rolling update never surges.)
 */
import { setup } from 'xstate';
import { defineLifecycle, type LifecycleStateMeta } from '../../src/runtime/lifecycle.js';

/** What the reconcile observed (controllers/daemonset/sync.ts `daemonPlan` computes it with the controller's rules). */
export interface DaemonSetFacts {
  expectationsSatisfied: boolean;
  pendingCreates: number;
  pendingDeletes: number;
  /** updateStrategy RollingUpdate (else OnDelete). */
  rolling: boolean;
  /** Nodes that should run the pod. */
  desired: number;
  /** Nodes (that should run one) without a pod: a pod is created there. */
  toCreate: number;
  /** Pods on nodes that should not run one, extra pods on a node, Failed pods: deleted. */
  misplaced: number;
  /** Old-revision pods the rolling update deletes now, and those it leaves for later (or OnDelete keeps). */
  toReplace: number;
  oldLeft: number;
  /** Nodes (that should run one) without an available pod, and how many may be (maxUnavailable as a number). */
  unavailable: number;
  maxUnavailable: number;
  /** Nodes running an available pod of the current revision. */
  updatedAvailable: number;
}

type Meta = LifecycleStateMeta<DaemonSetFacts>;
const meta = (m: Meta): Meta => m;
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

export const daemonSetLifecycleMachine = setup({
  types: { events: {} as { type: 'observed'; facts: DaemonSetFacts } },
  guards: {
    expectationsPending: ({ event }) => !event.facts.expectationsSatisfied,
    placement: ({ event }) => event.facts.toCreate > 0 || event.facts.misplaced > 0,
    replace: ({ event }) => event.facts.toReplace > 0,
    rollingBlocked: ({ event }) => event.facts.rolling && event.facts.oldLeft > 0,
    onDeleteOld: ({ event }) => !event.facts.rolling && event.facts.oldLeft > 0,
  },
}).createMachine({
  id: 'daemonset',
  initial: 'observing',
  on: {
    observed: [
      { guard: 'expectationsPending', target: '.waitingOnExpectations' },
      { guard: 'placement', target: '.placing' },
      { guard: 'replace', target: '.rollingUpdate.replacing' },
      { guard: 'rollingBlocked', target: '.rollingUpdate.waitingForAvailable' },
      { guard: 'onDeleteOld', target: '.onDeleteHeld' },
      { target: '.upToDate' },
    ],
  },
  states: {
    observing: { description: 'not reconciled yet' },
    waitingOnExpectations: {
      description: 'its own creates or deletes are not in its cache yet: nothing is acted on until they are',
      meta: meta({ holds: (f) => `waiting: ${plural(f.pendingCreates, 'create')} and ${plural(f.pendingDeletes, 'delete')} not yet seen` }),
    },
    placing: {
      description:
        'creating the pod on each node that should run one and has none, deleting pods on nodes that should not, extra and Failed ones (and the rolling update deletes its budget allows)',
      meta: meta({ holds: (f) => `${f.desired} nodes should run one: creating on ${f.toCreate}, deleting ${plural(f.misplaced, 'misplaced pod')}` }),
    },
    rollingUpdate: {
      initial: 'replacing',
      states: {
        replacing: {
          description: 'RollingUpdate: deleting old-revision pods (unavailable ones first) while at most maxUnavailable nodes are without an available pod: their nodes get the new one next',
          meta: meta({ holds: (f) => `replacing ${plural(f.toReplace, 'old pod')} (${f.oldLeft} more left); ${f.unavailable} of ${f.desired} nodes unavailable, maxUnavailable ${f.maxUnavailable}` }),
        },
        waitingForAvailable: {
          description: 'RollingUpdate: old pods left, but maxUnavailable nodes are already without an available pod',
          meta: meta({ holds: (f) => `waiting: ${f.updatedAvailable} of ${f.desired} nodes updated and available, ${f.unavailable} unavailable (maxUnavailable ${f.maxUnavailable}), ${plural(f.oldLeft, 'old pod')} left` }),
        },
      },
    },
    onDeleteHeld: {
      tags: ['resting'],
      description: 'OnDelete: pods of an older revision stay until someone deletes them, and their replacements get the current one',
      meta: meta({ holds: (f) => `OnDelete: ${plural(f.oldLeft, 'pod')} of ${f.desired} on an older revision until deleted` }),
    },
    upToDate: {
      tags: ['resting'],
      description: 'one pod of the current revision on every node that should run one',
      meta: meta({ holds: (f) => `${f.updatedAvailable} of ${f.desired} nodes run an available pod of the current revision` }),
    },
  },
});

export const daemonSetLifecycle = defineLifecycle<DaemonSetFacts>('daemonset', 'DaemonSet', daemonSetLifecycleMachine);
