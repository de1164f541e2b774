/**
 * The lifecycle of a Namespace, as the namespace controller (controllers/namespace/) sees it on each
 * reconcile. A namespace being deleted is emptied in passes (the established deleter's): each pass
 * discovers the deletable resources, deletes their collections and lists what remains; what the
 * pass found decides the state, in the order below, and the state says what happens next.
 *
 *   active                      not being deleted: nothing to do
 *   discovering                 the deletable resources could not be discovered
 *                               (NamespaceDeletionDiscoveryFailure=True): looked at again after a back-off
 *   deletingContent             some kinds could not be deleted (NamespaceDeletionContentFailure=True) or
 *                               objects remain without finalizers (pods in their grace period,
 *                               NamespaceContentRemaining=True): looked at again when the longest grace ends
 *   waitingOnFinalizers
 *     content                   what remains is held by finalizers (NamespaceFinalizersRemaining=True):
 *                               their owners release them
 *     namespace                 the `svc` finalizer is gone, other spec.finalizers remain: their owners'
 *   done                        empty: the `svc` finalizer is removed (namespaces/<name>/finalize), so the
 *                               server deletes the namespace
 */
import { setup } from 'xstate';
import { defineLifecycle, type LifecycleStateMeta } from '../../src/runtime/lifecycle.js';

/** What a pass observed (controllers/namespace/lifecycle-facts.ts computes it from the pass's result). */
export interface NamespaceFacts {
  /** metadata.deletionTimestamp is set. */
  deleting: boolean;
  /** spec.finalizers holds `svc` (this controller's). */
  ownFinalizer: boolean;
  /** spec.finalizers other than `svc`: how many, and which (sorted, comma-separated). */
  otherFinalizers: number;
  otherFinalizersText: string;
  /** Discovery failed this pass: its message. */
  discoveryError: string | undefined;
  /** Kinds whose content could not be deleted or listed. */
  failures: number;
  /** Objects still in the namespace, and `describeCounts` of them (`pods has 2 resource instances`). */
  remaining: number;
  remainingText: string;
  /** Objects of what remains holding finalizers, and which (`example.com/keep in 1 resource instances`). */
  finalized: number;
  finalizersText: string;
  /** The longest grace period still running among what remains (ms). */
  estimateMs: number;
}

type Meta = LifecycleStateMeta<NamespaceFacts>;
const meta = (m: Meta): Meta => m;

export const namespaceLifecycleMachine = setup({
  types: { events: {} as { type: 'observed'; facts: NamespaceFacts } },
  guards: {
    active: ({ event }) => !event.facts.deleting,
    othersFinalizing: ({ event }) => !event.facts.ownFinalizer && event.facts.otherFinalizers > 0,
    released: ({ event }) => !event.facts.ownFinalizer,
    discoveryFailed: ({ event }) => event.facts.discoveryError !== undefined,
    contentLeft: ({ event }) => event.facts.failures > 0 || event.facts.remaining > event.facts.finalized,
    finalizersLeft: ({ event }) => event.facts.finalized > 0,
  },
}).createMachine({
  id: 'namespace',
  initial: 'observing',
  on: {
    observed: [
      { guard: 'active', target: '.active' },
      { guard: 'othersFinalizing', target: '.waitingOnFinalizers.namespace' },
      { guard: 'released', target: '.done' },
      { guard: 'discoveryFailed', target: '.discovering' },
      { guard: 'contentLeft', target: '.deletingContent' },
      { guard: 'finalizersLeft', target: '.waitingOnFinalizers.content' },
      { target: '.done' },
    ],
  },
  states: {
    observing: { description: 'not reconciled yet' },
    active: {
      tags: ['resting'],
      description: 'not being deleted: nothing to do',
      meta: meta({ holds: () => 'no deletionTimestamp' }),
    },
    discovering: {
      description: 'discovering the deletable resources: discovery failed (NamespaceDeletionDiscoveryFailure=True), tried again after a back-off',
      meta: meta({ holds: (f) => `discovery failed: ${f.discoveryError ?? ''}` }),
    },
    deletingContent: {
      description: 'deleting the content kind by kind (collections), objects in their grace period are waited for (NamespaceContentRemaining)',
      meta: meta({
        holds: (f) =>
          [f.failures ? `${f.failures} kind${f.failures === 1 ? '' : 's'} could not be deleted` : '', f.remainingText ? `remaining: ${f.remainingText}` : '', f.estimateMs > 0 ? `longest grace period ends in ${Math.ceil(f.estimateMs / 1000)} s` : '']
            .filter(Boolean)
            .join('; '),
      }),
    },
    waitingOnFinalizers: {
      initial: 'content',
      states: {
        content: {
          description: 'what remains is held by finalizers (NamespaceFinalizersRemaining): waiting for their owners to release them',
          meta: meta({ holds: (f) => `finalizers remaining: ${f.finalizersText}` }),
        },
        namespace: {
          description: 'the svc finalizer is removed, other spec.finalizers are their owners\' to remove',
          meta: meta({ holds: (f) => `spec.finalizers: ${f.otherFinalizersText}` }),
        },
      },
    },
    done: {
      description: 'empty: the svc finalizer is removed (finalize), so the server deletes the namespace',
      meta: meta({ holds: (f) => (f.ownFinalizer ? 'every deletable resource listed empty' : 'no finalizer left: the server removes it') }),
    },
  },
});

export const namespaceLifecycle = defineLifecycle<NamespaceFacts>('namespace', 'Namespace', namespaceLifecycleMachine);
