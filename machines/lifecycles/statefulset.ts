/**
 * The lifecycle of a StatefulSet, as the statefulset controller (controllers/statefulset/) sees it
 * on each reconcile: what it observed of the set and its pods (by ordinal) decides the state, in
 * the order below; the reconcile then does that state's one step (OrderedReady: one pod; Parallel:
 * every pod that needs it at once), and the pods' watch events bring it back.
 *
 *   creating
 *     inOrder              OrderedReady: the lowest missing ordinal is created once 0..N-1 are Running and Ready
 *     inParallel           Parallel: every missing ordinal at once (failed and surplus pods removed in the same pass)
 *   replacingFailed        a Failed pod is deleted; its ordinal is created again on the next pass
 *   waitingForReady        OrderedReady: pod N is not Running and Ready, so nothing after it moves;
 *                          a rolling update waits for every pod to be Running and Ready
 *   scalingDown
 *     deleting             pods at ordinals >= replicas deleted, the highest first (OrderedReady: one at a time)
 *     waitingForTermination the pod being removed is still terminating
 *   updating               RollingUpdate: the highest ordinal >= partition of an older revision is
 *                          deleted, and comes back on the update revision
 *   partitioned            pods below the partition (every pod under OnDelete) keep their older revision
 *   upToDate               every pod at the update revision
 */
import { setup } from 'xstate';
import { defineLifecycle, type LifecycleStateMeta } from '../../src/runtime/lifecycle.js';

/** What the reconcile observed (controllers/statefulset/sync.ts `statefulSetPlan` computes it with the controller's rules). */
export interface StatefulSetFacts {
  /** podManagementPolicy OrderedReady (else Parallel). */
  ordered: boolean;
  /** updateStrategy RollingUpdate (else OnDelete). */
  rolling: boolean;
  /** The set's name, for naming pods in `holds`. */
  name: string;
  replicas: number;
  /** rollingUpdate.partition (0 when OnDelete). */
  partition: number;
  /** Pods at ordinals 0..replicas-1 not being deleted, and of those Running and Ready. */
  pods: number;
  ready: number;
  /** Ordinals below replicas without a pod, and Failed pods there not yet being deleted. */
  missing: number;
  failed: number;
  /** OrderedReady: the lowest ordinal that stops the pass (-1: none), and why. */
  blockedOrdinal: number;
  blockedBy: 'missing' | 'failed' | 'unready' | '';
  /** Pods at ordinals >= replicas, and of those already terminating. */
  condemned: number;
  condemnedTerminating: number;
  /** The highest condemned ordinal (-1: none). */
  highestCondemned: number;
  /** Pods of an older revision at ordinals >= partition (RollingUpdate), the highest of them (-1: none), and those held below the partition (or by OnDelete). */
  staleToUpdate: number;
  highestStale: number;
  staleHeld: number;
  /** Every ordinal below replicas has a pod, Running and Ready. */
  allReady: boolean;
}

type Meta = LifecycleStateMeta<StatefulSetFacts>;
const meta = (m: Meta): Meta => m;
const pod = (f: StatefulSetFacts, ordinal: number) => `${f.name}-${ordinal}`;

export const statefulSetLifecycleMachine = setup({
  types: { events: {} as { type: 'observed'; facts: StatefulSetFacts } },
  guards: {
    orderedMissing: ({ event }) => event.facts.ordered && event.facts.blockedBy === 'missing',
    parallelMissing: ({ event }) => !event.facts.ordered && event.facts.missing > 0,
    failed: ({ event }) => (event.facts.ordered ? event.facts.blockedBy === 'failed' : event.facts.failed > 0),
    orderedUnready: ({ event }) => event.facts.ordered && event.facts.blockedBy === 'unready',
    condemnedTerminating: ({ event }) => {
      const f = event.facts;
      return f.condemned > 0 && (f.ordered ? f.condemnedTerminating > 0 : f.condemnedTerminating === f.condemned);
    },
    condemned: ({ event }) => event.facts.condemned > 0,
    updateWaitsForReady: ({ event }) => event.facts.rolling && event.facts.staleToUpdate > 0 && !event.facts.allReady,
    stale: ({ event }) => event.facts.rolling && event.facts.staleToUpdate > 0,
    held: ({ event }) => event.facts.staleHeld > 0,
  },
}).createMachine({
  id: 'statefulset',
  initial: 'observing',
  on: {
    observed: [
      { guard: 'orderedMissing', target: '.creating.inOrder' },
      { guard: 'parallelMissing', target: '.creating.inParallel' },
      { guard: 'failed', target: '.replacingFailed' },
      { guard: 'orderedUnready', target: '.waitingForReady' },
      { guard: 'condemnedTerminating', target: '.scalingDown.waitingForTermination' },
      { guard: 'condemned', target: '.scalingDown.deleting' },
      { guard: 'updateWaitsForReady', target: '.waitingForReady' },
      { guard: 'stale', target: '.updating' },
      { guard: 'held', target: '.partitioned' },
      { target: '.upToDate' },
    ],
  },
  states: {
    observing: { description: 'not reconciled yet' },
    creating: {
      initial: 'inOrder',
      states: {
        inOrder: {
          description: 'OrderedReady: creating the lowest missing ordinal (its claims first), once every lower one is Running and Ready',
          meta: meta({ holds: (f) => `creating ${pod(f, f.blockedOrdinal)}: ${f.ready} of ${f.replicas} Running and Ready` }),
        },
        inParallel: {
          description: 'Parallel: creating every missing ordinal at once (failed and surplus pods removed in the same pass)',
          meta: meta({ holds: (f) => `creating ${f.missing} pod${f.missing === 1 ? '' : 's'} at once: ${f.pods} of ${f.replicas} exist` }),
        },
      },
    },
    replacingFailed: {
      description: 'deleting a Failed pod: its ordinal is created again (same name, same claims) on the next pass',
      meta: meta({ holds: (f) => (f.ordered ? `${pod(f, f.blockedOrdinal)} Failed: deleting it to create it again` : `${f.failed} Failed pod${f.failed === 1 ? '' : 's'}: deleting to create again`) }),
    },
    waitingForReady: {
      description: 'OrderedReady: nothing after a pod that is not Running and Ready moves, and a rolling update waits for every pod to be Running and Ready',
      meta: meta({
        holds: (f) =>
          f.ordered && f.blockedBy === 'unready'
            ? `waiting: ${pod(f, f.blockedOrdinal)} not Running and Ready; ${f.ready} of ${f.replicas} ready`
            : `waiting: ${f.ready} of ${f.replicas} Running and Ready before updating ${f.staleToUpdate} more`,
      }),
    },
    scalingDown: {
      initial: 'deleting',
      states: {
        deleting: {
          description: 'deleting pods at ordinals from replicas up, the highest first (OrderedReady: one at a time, once the rest are ready)',
          meta: meta({ holds: (f) => `${f.condemned} pod${f.condemned === 1 ? '' : 's'} above replicas ${f.replicas}: deleting ${f.ordered ? pod(f, f.highestCondemned) : 'them'}` }),
        },
        waitingForTermination: {
          description: 'the pod being removed is still terminating: the next one waits for it',
          meta: meta({ holds: (f) => `waiting: ${f.condemnedTerminating} pod${f.condemnedTerminating === 1 ? '' : 's'} above replicas ${f.replicas} still terminating` }),
        },
      },
    },
    updating: {
      description: 'RollingUpdate: deleting the highest ordinal (from the partition up) of an older revision: it comes back on the update revision',
      meta: meta({ holds: (f) => `${f.staleToUpdate} pod${f.staleToUpdate === 1 ? '' : 's'} at ordinals >= ${f.partition} on an older revision: replacing ${pod(f, f.highestStale)}` }),
    },
    partitioned: {
      tags: ['resting'],
      description: 'pods below the partition (every pod under OnDelete) keep their older revision until the partition is lowered (or they are deleted)',
      meta: meta({
        holds: (f) => (f.rolling ? `partition ${f.partition}: ${f.staleHeld} pod${f.staleHeld === 1 ? '' : 's'} below it on an older revision` : `OnDelete: ${f.staleHeld} pod${f.staleHeld === 1 ? '' : 's'} on an older revision until deleted`),
      }),
    },
    upToDate: {
      tags: ['resting'],
      description: 'every pod at the update revision',
      meta: meta({ holds: (f) => `${f.ready} of ${f.replicas} Running and Ready at the update revision` }),
    },
  },
});

export const statefulSetLifecycle = defineLifecycle<StatefulSetFacts>('statefulset', 'StatefulSet', statefulSetLifecycleMachine);
