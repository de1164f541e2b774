/**
 * The lifecycle of a Job, as the job controller (controllers/job/) sees it on each reconcile: the
 * Job's pods and its status decide the state, in the order below (the order of the controller's
 * verdict: backoffLimit, then activeDeadlineSeconds, then completion; then how many pods to run);
 * the reconcile does that state's step and the pods' watch events bring it back.
 *
 *   active
 *     creating          fewer pods run than wanted (parallelism, completions left): create them in slow-start batches
 *     backingOff        fewer pods than wanted, but a pod failed recently: wait 10 s doubling to 6 min before replacing it
 *     removingSurplus   more pods run than wanted (parallelism lowered): delete the surplus, least advanced first
 *     running           as many pods as wanted run (or the watch has not shown the pods just made): wait for them to finish
 *   complete            completions pods succeeded (without completions: one did and none runs): Complete=True
 *   failed              more pods failed than backoffLimit: active pods deleted, Failed=True BackoffLimitExceeded
 *   deadlineExceeded    active longer than activeDeadlineSeconds: active pods deleted, Failed=True DeadlineExceeded
 *
 * This API's Job spec has no `suspend` field yet (src/api/kinds/batch/job.ts), so no `suspended` state is drawn.
 */
import { setup } from 'xstate';
import { defineLifecycle, type LifecycleStateMeta } from '../../src/runtime/lifecycle.js';

/** What the reconcile observed (controllers/job/sync.ts `jobFacts` computes it with the controller's rules). */
export interface JobFacts {
  /** The controller's verdict (or, for a finished Job, its condition). */
  outcome: 'running' | 'complete' | 'backoffLimitExceeded' | 'deadlineExceeded';
  /** Pods it created or deleted that the watch has not shown yet (the expectations). */
  expectationsPending: boolean;
  /** Pods running now, and how many the rules want running. */
  active: number;
  wanted: number;
  succeeded: number;
  failed: number;
  /** spec.completions (undefined: the work-queue form), spec.parallelism, spec.backoffLimit. */
  completions: number | undefined;
  parallelism: number;
  backoffLimit: number;
  activeDeadlineSeconds: number | undefined;
  /** Milliseconds of pod-failure back-off still to wait before replacing failed pods (0: none). */
  backoffLeftMs: number;
}

type Meta = LifecycleStateMeta<JobFacts>;
const meta = (m: Meta): Meta => m;
const toDo = (f: JobFacts) => (f.completions === undefined ? 'a work queue' : `${f.succeeded} of ${f.completions} succeeded`);

export const jobLifecycleMachine = setup({
  types: { events: {} as { type: 'observed'; facts: JobFacts } },
  guards: {
    backoffLimitExceeded: ({ event }) => event.facts.outcome === 'backoffLimitExceeded',
    deadlineExceeded: ({ event }) => event.facts.outcome === 'deadlineExceeded',
    complete: ({ event }) => event.facts.outcome === 'complete' && !event.facts.expectationsPending,
    expectationsPending: ({ event }) => event.facts.expectationsPending,
    backingOff: ({ event }) => event.facts.wanted > event.facts.active && event.facts.backoffLeftMs > 0,
    tooFew: ({ event }) => event.facts.wanted > event.facts.active,
    tooMany: ({ event }) => event.facts.wanted < event.facts.active,
  },
}).createMachine({
  id: 'job',
  initial: 'observing',
  on: {
    observed: [
      { guard: 'backoffLimitExceeded', target: '.failed' },
      { guard: 'deadlineExceeded', target: '.deadlineExceeded' },
      { guard: 'complete', target: '.complete' },
      // Pods it made may still be on their way: no count is trusted until the watch shows them.
      { guard: 'expectationsPending', target: '.active.running' },
      { guard: 'backingOff', target: '.active.backingOff' },
      { guard: 'tooFew', target: '.active.creating' },
      { guard: 'tooMany', target: '.active.removingSurplus' },
      { target: '.active.running' },
    ],
  },
  states: {
    observing: { description: 'not reconciled yet' },
    active: {
      initial: 'creating',
      states: {
        creating: {
          description: 'creating pods from the template, up to parallelism and the completions left, in slow-start batches',
          meta: meta({ holds: (f) => `${f.active} of ${f.wanted} wanted pods running (parallelism ${f.parallelism}; ${toDo(f)})` }),
        },
        backingOff: {
          description: 'a pod failed: waiting out the back-off (10 s doubling per failure, at most 6 min) before replacing it',
          meta: meta({ holds: (f) => `${f.failed} failed of backoffLimit ${f.backoffLimit}: replacing in ${Math.ceil(f.backoffLeftMs / 1000)} s; ${f.active} of ${f.wanted} running` }),
        },
        removingSurplus: {
          description: 'more pods run than wanted (parallelism lowered): deleting the surplus, least advanced first',
          meta: meta({ holds: (f) => `${f.active} pods running, ${f.wanted} wanted (parallelism ${f.parallelism})` }),
        },
        running: {
          description: 'as many pods as wanted run: waiting for them to finish',
          meta: meta({
            holds: (f) =>
              f.expectationsPending
                ? 'waiting for the watch to show the pods it just created or deleted'
                : `${f.active} running; ${toDo(f)}${f.activeDeadlineSeconds !== undefined ? `; activeDeadlineSeconds ${f.activeDeadlineSeconds}` : ''}`,
          }),
        },
      },
    },
    complete: {
      tags: ['resting'],
      description: 'done: Complete=True with completionTime; the Job is left alone (ttl-after-finished may remove it)',
      meta: meta({ holds: (f) => `${f.succeeded} succeeded${f.completions !== undefined ? ` of ${f.completions} completions` : ''}` }),
    },
    failed: {
      tags: ['resting'],
      description: 'backoffLimit exceeded: active pods deleted, Failed=True BackoffLimitExceeded',
      meta: meta({ holds: (f) => `${f.failed} pods failed, backoffLimit ${f.backoffLimit}` }),
    },
    deadlineExceeded: {
      tags: ['resting'],
      description: 'active longer than activeDeadlineSeconds: active pods deleted, Failed=True DeadlineExceeded',
      meta: meta({ holds: (f) => `activeDeadlineSeconds ${f.activeDeadlineSeconds ?? '?'} passed; ${toDo(f)}` }),
    },
  },
});

export const jobLifecycle = defineLifecycle<JobFacts>('job', 'Job', jobLifecycleMachine);
