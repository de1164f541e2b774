/**
 * The lifecycle of one object as the garbage collector (controllers/garbagecollector/) sees it when
 * it looks at it: what the ownership graph (and, for owners it does not know, a GET) says of the
 * object, its owners and its dependents decides the state, in the order below; the attempt then
 * does that state's step (controllers/garbagecollector/attempt.ts).
 *
 *   orphaning                   being deleted with `orphan`: dependents lose their reference to it,
 *                               then the finalizer goes
 *   foreground
 *     waitingForDependents      being deleted with `foregroundDeletion`: dependents are deleted, and it
 *                               stays while some with blockOwnerDeletion remain
 *     releasing                 no blocking dependent left: the `foregroundDeletion` finalizer goes
 *   deleting                    every owner is gone (or waits in the foreground): the object is deleted
 *   kept                        some owner still exists: it stays (references to gone owners removed)
 *   idle                        nothing to collect: no owners, or being deleted without a collector finalizer
 */
import { setup } from 'xstate';
import { defineLifecycle, type LifecycleStateMeta } from '../../src/runtime/lifecycle.js';

/** What the collector observed of one object (controllers/garbagecollector/attempt.ts computes it). */
export interface GarbageFacts {
  beingDeleted: boolean;
  /** Carries the `orphan` / `foregroundDeletion` finalizer. */
  orphanFinalizer: boolean;
  foregroundFinalizer: boolean;
  /** Its dependents in the graph (read for orphan and foreground deletions); of them, those not yet being deleted, and those blocking its deletion. */
  dependents: number;
  dependentsNotDeleting: number;
  blocking: number;
  /** Its ownerReferences, and how each owner was found: existing, gone, or waiting (being deleted in the foreground). */
  owners: number;
  solidOwners: number;
  goneOwners: number;
  waitingOwners: number;
  /** The propagation policy it would be deleted with (the established choice). */
  policy: 'Foreground' | 'Background' | 'Orphan';
}

type Meta = LifecycleStateMeta<GarbageFacts>;
const meta = (m: Meta): Meta => m;
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

export const garbageCollectorLifecycleMachine = setup({
  types: { events: {} as { type: 'observed'; facts: GarbageFacts } },
  guards: {
    orphaning: ({ event }) => event.facts.beingDeleted && event.facts.orphanFinalizer,
    blocked: ({ event }) => event.facts.beingDeleted && event.facts.foregroundFinalizer && event.facts.blocking > 0,
    foregroundDone: ({ event }) => event.facts.beingDeleted && event.facts.foregroundFinalizer,
    nothingToCollect: ({ event }) => event.facts.beingDeleted || event.facts.owners === 0,
    ownerExists: ({ event }) => event.facts.solidOwners > 0,
  },
}).createMachine({
  id: 'garbagecollector',
  initial: 'observing',
  on: {
    observed: [
      { guard: 'orphaning', target: '.orphaning' },
      { guard: 'blocked', target: '.foreground.waitingForDependents' },
      { guard: 'foregroundDone', target: '.foreground.releasing' },
      { guard: 'nothingToCollect', target: '.idle' },
      { guard: 'ownerExists', target: '.kept' },
      { target: '.deleting' },
    ],
  },
  states: {
    observing: { description: 'not looked at yet' },
    orphaning: {
      description: 'orphan deletion: the dependents lose their reference to it, then the orphan finalizer is removed',
      meta: meta({ holds: (f) => `${plural(f.dependents, 'dependent')} to orphan` }),
    },
    foreground: {
      initial: 'waitingForDependents',
      states: {
        waitingForDependents: {
          description: 'foreground deletion: its dependents are deleted (in the foreground when they have dependents), it stays while blocking ones remain',
          meta: meta({ holds: (f) => `waiting: ${plural(f.blocking, 'dependent')} with blockOwnerDeletion left (${f.dependentsNotDeleting} not yet being deleted)` }),
        },
        releasing: {
          description: 'foreground deletion: no blocking dependent left, the foregroundDeletion finalizer is removed',
          meta: meta({ holds: (f) => (f.dependents ? `${plural(f.dependents, 'dependent')} left, none blocking` : 'no dependent left') }),
        },
      },
    },
    deleting: {
      description: 'every owner is gone (or waits for it in the foreground): the object is deleted',
      meta: meta({ holds: (f) => `${f.goneOwners} of ${f.owners} owners gone${f.waitingOwners ? `, ${f.waitingOwners} waiting in the foreground` : ''}: deleting with propagationPolicy ${f.policy}` }),
    },
    kept: {
      tags: ['resting'],
      description: 'some owner still exists: it stays, references to gone owners are removed',
      meta: meta({ holds: (f) => `${f.solidOwners} of ${f.owners} owners exist${f.goneOwners + f.waitingOwners ? `; ${f.goneOwners + f.waitingOwners} references to remove` : ''}` }),
    },
    idle: {
      tags: ['resting'],
      description: 'nothing to collect: no owners, or being deleted without an orphan or foregroundDeletion finalizer',
      meta: meta({ holds: (f) => (f.beingDeleted ? 'being deleted without a collector finalizer' : 'no owners') }),
    },
  },
});

export const garbageCollectorLifecycle = defineLifecycle<GarbageFacts>('garbagecollector', 'object', garbageCollectorLifecycleMachine);
