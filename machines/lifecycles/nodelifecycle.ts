/**
 * The lifecycle of a Node, as the nodelifecycle controller (controllers/nodelifecycle/) sees it on
 * each pass over the node's key: its conditions, its taints, its zone's eviction queue and the
 * taint manager's verdicts on its pods decide the state, in the order below; the reconcile then
 * does that state's step. (The monitor pass, `:tick`, is what turns a silent node's conditions
 * Unknown and puts the NoExecute taint on, at its zone's rate: the node's next pass shows it.)
 *
 *   taintingNoSchedule          its NoSchedule taints do not follow its conditions yet
 *                               (node.svc.io/not-ready, /unreachable, the pressures, unschedulable): swapped
 *   noExecute                   it has a NoExecute taint (node.svc.io/not-ready or /unreachable); the taint manager:
 *     evicting                  deletes now its pods that do not tolerate it (or whose tolerationSeconds ran out)
 *     tolerating                waits: pods tolerate it for their tolerationSeconds (the grace period running)
 *     tainted                   nothing left to evict (pods gone or tolerating it for ever)
 *   notReady                    Ready False, no NoExecute taint yet: queued in its zone for node.svc.io/not-ready
 *                               (rate-limited per zone; none while every zone is fully disrupted)
 *   unreachable                 Ready Unknown (or never posted), no NoExecute taint yet: likewise for
 *                               node.svc.io/unreachable
 *   ready                       Ready True, its taints follow its conditions
 */
import { setup } from 'xstate';
import { defineLifecycle, type LifecycleStateMeta } from '../../src/runtime/lifecycle.js';

/** What the node's pass observed (controllers/nodelifecycle/lifecycle-facts.ts computes it). */
export interface NodeFacts {
  /** The Ready condition's status; `none` before the node posted one. */
  ready: 'True' | 'False' | 'Unknown' | 'none';
  /** NoSchedule taints to add (its conditions call for them) or remove (they no longer do), and which (`add a; remove b`). */
  noScheduleChanges: number;
  noScheduleText: string;
  /** Its NoExecute taints, and their keys (comma-separated). */
  noExecuteTaints: number;
  noExecuteText: string;
  /** --enable-taint-manager. */
  taintManager: boolean;
  /** Its zone as people read it (`region/zone`, `(no zone)`), the zone's state and eviction rate (nodes per second). */
  zone: string;
  zoneState: string;
  zoneQps: number;
  /** Queued in the zone for its NoExecute taint (or, without the taint manager, its pods' deletion). */
  queued: boolean;
  /** The taint manager's verdicts on its pods: to delete now, and waiting out tolerationSeconds (first in `nextEvictionInMs`). */
  evictNow: number;
  tolerating: number;
  nextEvictionInMs: number | undefined;
}

type Meta = LifecycleStateMeta<NodeFacts>;
const meta = (m: Meta): Meta => m;
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
const zoneText = (f: NodeFacts) => `zone ${f.zone} ${f.zoneState} at ${f.zoneQps} nodes/s`;
const waitText = (f: NodeFacts, taint: string) =>
  `${zoneText(f)}: ${f.queued ? `queued for ${taint}${f.taintManager ? ':NoExecute' : ' (pods deleted after --pod-eviction-timeout)'}` : f.zoneQps === 0 ? 'no evictions in this zone state' : `not queued yet (next monitor pass)`}`;

export const nodeLifecycleMachine = setup({
  types: { events: {} as { type: 'observed'; facts: NodeFacts } },
  guards: {
    noScheduleDiffers: ({ event }) => event.facts.noScheduleChanges > 0,
    evictNow: ({ event }) => event.facts.noExecuteTaints > 0 && event.facts.evictNow > 0,
    tolerating: ({ event }) => event.facts.noExecuteTaints > 0 && event.facts.tolerating > 0,
    noExecute: ({ event }) => event.facts.noExecuteTaints > 0,
    notReady: ({ event }) => event.facts.ready === 'False',
    unreachable: ({ event }) => event.facts.ready === 'Unknown' || event.facts.ready === 'none',
  },
}).createMachine({
  id: 'nodelifecycle',
  initial: 'observing',
  on: {
    observed: [
      { guard: 'noScheduleDiffers', target: '.taintingNoSchedule' },
      { guard: 'evictNow', target: '.noExecute.evicting' },
      { guard: 'tolerating', target: '.noExecute.tolerating' },
      { guard: 'noExecute', target: '.noExecute.tainted' },
      { guard: 'notReady', target: '.notReady' },
      { guard: 'unreachable', target: '.unreachable' },
      { target: '.ready' },
    ],
  },
  states: {
    observing: { description: 'not looked at yet' },
    taintingNoSchedule: {
      description: 'its NoSchedule taints are made to follow its conditions (TaintNodesByCondition)',
      meta: meta({
        holds: (f) => `${f.noScheduleText} (Ready ${f.ready})`,
      }),
    },
    noExecute: {
      initial: 'tainted',
      states: {
        evicting: {
          description: 'taint-based eviction: the taint manager deletes the pods that do not tolerate the NoExecute taint (or whose tolerationSeconds ran out)',
          meta: meta({ holds: (f) => `${f.noExecuteText}:NoExecute: ${plural(f.evictNow, 'pod')} to delete now${f.tolerating ? `, ${f.tolerating} tolerating` : ''}` }),
        },
        tolerating: {
          description: 'grace period running: pods tolerate the NoExecute taint for their tolerationSeconds, deleted when it runs out',
          meta: meta({ holds: (f) => `${f.noExecuteText}:NoExecute: ${plural(f.tolerating, 'pod')} tolerating it, the first evicted in ${Math.ceil((f.nextEvictionInMs ?? 0) / 1000)} s` }),
        },
        tainted: {
          description: 'tainted NoExecute with nothing left to evict, the monitor pass lifts the taint once Ready is True',
          meta: meta({ holds: (f) => `${f.noExecuteText}:NoExecute (Ready ${f.ready}): no pod to evict` }),
        },
      },
    },
    notReady: {
      description: 'Ready False: waits in its zone\'s rate-limited queue for node.svc.io/not-ready:NoExecute',
      meta: meta({ holds: (f) => `Ready False; ${waitText(f, 'node.svc.io/not-ready')}` }),
    },
    unreachable: {
      description: 'Ready Unknown (stopped posting status, or never did): waits in its zone\'s rate-limited queue for node.svc.io/unreachable:NoExecute',
      meta: meta({ holds: (f) => `Ready ${f.ready === 'none' ? 'never posted' : 'Unknown'}; ${waitText(f, 'node.svc.io/unreachable')}` }),
    },
    ready: {
      tags: ['resting'],
      description: 'Ready: its taints follow its conditions, nothing to do',
      meta: meta({ holds: (f) => `Ready True; ${zoneText(f)}` }),
    },
  },
});

export const nodeLifecycle = defineLifecycle<NodeFacts>('nodelifecycle', 'Node', nodeLifecycleMachine);
