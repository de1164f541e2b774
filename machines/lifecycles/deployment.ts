/**
 * The lifecycle of a Deployment, as the deployment controller (controllers/deployment/) sees it on
 * each reconcile: what it observed of the Deployment and its ReplicaSets decides the state, in the
 * order below; the reconcile then does that state's one step (as the established controller does
 * at most one scaling step per sync) and the ReplicaSets' changes bring it back.
 *
 *   paused                  spec.paused: sizes follow spec.replicas, no rollout
 *   scaling                 resized mid-rollout: the new size spread over the active ReplicaSets in proportion
 *   progressing
 *     creatingReplicaSet    no ReplicaSet runs the current template yet
 *     surging               RollingUpdate: the new ReplicaSet grows, total within replicas + maxSurge
 *     drainingOld           RollingUpdate: old ReplicaSets shrink, keeping replicas - maxUnavailable available
 *     waitingForAvailable   nothing to scale until more new pods are available
 *     recreate
 *       scalingDownOld      Recreate: every old ReplicaSet to 0
 *       waitingForOldPods   Recreate: no new pod until every old pod is gone
 *       scalingUpNew        Recreate: the new ReplicaSet to replicas
 *   complete                every replica updated and available, no old pod left
 *   deadlineExceeded        no progress within progressDeadlineSeconds (Progressing=False)
 */
import { setup } from 'xstate';
import { defineLifecycle, type LifecycleStateMeta } from '../../src/runtime/lifecycle.js';

/** What the reconcile observed (controllers/deployment/lifecycle-facts.ts computes it with the controller's rules). */
export interface DeploymentFacts {
  paused: boolean;
  recreate: boolean;
  /** spec.replicas. */
  replicas: number;
  maxSurge: number;
  maxUnavailable: number;
  /** A resize while ReplicaSets are active (the proportional-scaling rule). */
  scalingEvent: boolean;
  hasNewReplicaSet: boolean;
  /** The new ReplicaSet's spec.replicas, and what the rolling-update rule wants it at. */
  newReplicas: number;
  newReplicasWanted: number;
  newAvailable: number;
  /** spec.replicas summed over the old ReplicaSets. */
  oldReplicas: number;
  /** The rolling-update rule would shrink some old ReplicaSet now. */
  canDrainOld: boolean;
  /** Available pods over all ReplicaSets. */
  available: number;
  /** Recreate: old pods not yet finished. */
  oldPodsLeft: number;
  complete: boolean;
  /** status says Progressing=False, ProgressDeadlineExceeded. */
  deadlineExceeded: boolean;
  progressDeadlineSeconds: number | undefined;
}

type Meta = LifecycleStateMeta<DeploymentFacts>;
const meta = (m: Meta): Meta => m;

export const deploymentLifecycleMachine = setup({
  types: { events: {} as { type: 'observed'; facts: DeploymentFacts } },
  guards: {
    paused: ({ event }) => event.facts.paused,
    resized: ({ event }) => event.facts.scalingEvent,
    noNewReplicaSet: ({ event }) => !event.facts.hasNewReplicaSet,
    recreateOldScaled: ({ event }) => event.facts.recreate && event.facts.oldReplicas > 0,
    recreateOldPodsLeft: ({ event }) => event.facts.recreate && event.facts.oldPodsLeft > 0,
    recreateNewShort: ({ event }) => event.facts.recreate && event.facts.newReplicas !== event.facts.replicas,
    newCanGrow: ({ event }) => !event.facts.recreate && event.facts.newReplicasWanted !== event.facts.newReplicas,
    oldCanShrink: ({ event }) => !event.facts.recreate && event.facts.canDrainOld,
    complete: ({ event }) => event.facts.complete,
    deadlineExceeded: ({ event }) => event.facts.deadlineExceeded,
  },
}).createMachine({
  id: 'deployment',
  initial: 'observing',
  on: {
    observed: [
      { guard: 'paused', target: '.paused' },
      { guard: 'resized', target: '.scaling' },
      { guard: 'noNewReplicaSet', target: '.progressing.creatingReplicaSet' },
      { guard: 'recreateOldScaled', target: '.progressing.recreate.scalingDownOld' },
      { guard: 'recreateOldPodsLeft', target: '.progressing.recreate.waitingForOldPods' },
      { guard: 'recreateNewShort', target: '.progressing.recreate.scalingUpNew' },
      { guard: 'newCanGrow', target: '.progressing.surging' },
      { guard: 'oldCanShrink', target: '.progressing.drainingOld' },
      { guard: 'complete', target: '.complete' },
      { guard: 'deadlineExceeded', target: '.deadlineExceeded' },
      { target: '.progressing.waitingForAvailable' },
    ],
  },
  states: {
    observing: { description: 'not reconciled yet' },
    paused: {
      description: 'paused: sizes follow spec.replicas, no rollout',
      meta: meta({ holds: (f) => `spec.paused is true; ${f.available} of ${f.replicas} available` }),
    },
    scaling: {
      description: 'resized mid-rollout: the new size spread over the active ReplicaSets in proportion',
      meta: meta({ holds: (f) => `resized to ${f.replicas}: new ReplicaSet at ${f.newReplicas}, old at ${f.oldReplicas}` }),
    },
    progressing: {
      initial: 'creatingReplicaSet',
      states: {
        creatingReplicaSet: {
          description: 'creating the ReplicaSet of the current template (named by its hash)',
          meta: meta({ holds: () => 'no ReplicaSet runs the current template yet' }),
        },
        surging: {
          description: 'RollingUpdate: scaling the new ReplicaSet up, total within replicas + maxSurge',
          meta: meta({ holds: (f) => `new ReplicaSet ${f.newReplicas} → ${f.newReplicasWanted} of ${f.replicas} (maxSurge ${f.maxSurge})` }),
        },
        drainingOld: {
          description: 'RollingUpdate: scaling old ReplicaSets down, keeping replicas - maxUnavailable available',
          meta: meta({ holds: (f) => `${f.oldReplicas} old pods to remove; ${f.available} available, at least ${Math.max(0, f.replicas - f.maxUnavailable)} must stay (maxUnavailable ${f.maxUnavailable})` }),
        },
        waitingForAvailable: {
          description: 'waiting for new pods to become available before the next step',
          meta: meta({
            holds: (f) => `waiting: ${f.newAvailable} of ${f.replicas} new pods available, maxUnavailable ${f.maxUnavailable}${f.oldReplicas ? `, ${f.oldReplicas} old pods left` : ''}`,
          }),
        },
        recreate: {
          initial: 'scalingDownOld',
          states: {
            scalingDownOld: {
              description: 'Recreate: scaling every old ReplicaSet to 0',
              meta: meta({ holds: (f) => `${f.oldReplicas} old replicas to scale to 0` }),
            },
            waitingForOldPods: {
              description: 'Recreate: no new pod until every old pod is gone',
              meta: meta({ holds: (f) => `waiting: ${f.oldPodsLeft} old pod${f.oldPodsLeft === 1 ? '' : 's'} still running or terminating` }),
            },
            scalingUpNew: {
              description: 'Recreate: scaling the new ReplicaSet to replicas',
              meta: meta({ holds: (f) => `new ReplicaSet ${f.newReplicas} → ${f.replicas}` }),
            },
          },
        },
      },
    },
    complete: {
      tags: ['resting'],
      description: 'every replica updated and available, old ReplicaSets beyond revisionHistoryLimit removed',
      meta: meta({ holds: (f) => `${f.available} of ${f.replicas} available on the current template` }),
    },
    deadlineExceeded: {
      description: 'no progress within progressDeadlineSeconds: Progressing=False, ProgressDeadlineExceeded',
      meta: meta({ holds: (f) => `no progress for ${f.progressDeadlineSeconds ?? 600} s: ${f.newAvailable} of ${f.replicas} new pods available` }),
    },
  },
});

export const deploymentLifecycle = defineLifecycle<DeploymentFacts>('deployment', 'Deployment', deploymentLifecycleMachine);
