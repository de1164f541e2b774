/**
 * The lifecycle of a pod on a simulated node (src/nodes/sim-pod.ts), as the node agent sees it
 * each time it looks at the pod: where the pod's simulated life stands decides the state, in the
 * order below, and the state decides what its status shows — the phase and each container's state
 * (waiting with its reason, running, terminated). One machine for every node of the fleet: the
 * node agent's chart (`svc charts --machine node-agent`) draws it next to the agent.
 *
 *   waiting
 *     volumes            held until its claims' volumes are attached (ContainerCreating / PodInitializing)
 *     initializing       init containers run one after the other (PodInitializing)
 *     creating           the image is pulled and the containers start (ContainerCreating)
 *   running
 *     starting           running, not every container ready yet (readiness or startup probes)
 *     ready              running and every container ready
 *   restarting           exited and waits out its back-off before the next run (CrashLoopBackOff)
 *   terminated
 *     succeeded          exited 0 and not restarted (phase Succeeded)
 *     failed             exited non-zero (or killed) and not restarted (phase Failed)
 */
import { setup } from 'xstate';
import { defineLifecycle, type LifecycleStateMeta } from '../../src/runtime/lifecycle.js';

/** Where a simulated pod's life stands (SimPod.lifecycleFacts computes it from its own stage). */
export interface PodFacts {
  /** Held before its first container step until its volumes are attached. */
  heldForVolumes: boolean;
  /** Init containers: how many, and how many completed by now. */
  initContainers: number;
  initsDone: number;
  /** The app containers run (a run in progress). */
  running: boolean;
  /** App containers, and how many are ready now. */
  containers: number;
  ready: number;
  /** Waiting out a restart back-off, and how long it has left (ms). */
  backingOff: boolean;
  backoffLeftMs: number;
  restarts: number;
  /** It finished (no restart): the last exit code. */
  finished: boolean;
  exitCode: number | undefined;
  /** The first app container's image and when the containers start (ms from now; while creating). */
  image: string;
  startsInMs: number | undefined;
}

type Meta = LifecycleStateMeta<PodFacts>;
const meta = (m: Meta): Meta => m;
const seconds = (ms: number) => `${Math.ceil(ms / 1000)} s`;

export const podLifecycleMachine = setup({
  types: { events: {} as { type: 'observed'; facts: PodFacts } },
  guards: {
    succeeded: ({ event }) => event.facts.finished && event.facts.exitCode === 0,
    failed: ({ event }) => event.facts.finished,
    backingOff: ({ event }) => event.facts.backingOff,
    allReady: ({ event }) => event.facts.running && event.facts.ready === event.facts.containers,
    running: ({ event }) => event.facts.running,
    heldForVolumes: ({ event }) => event.facts.heldForVolumes,
    initializing: ({ event }) => event.facts.initsDone < event.facts.initContainers,
  },
}).createMachine({
  id: 'pod',
  initial: 'observing',
  on: {
    observed: [
      { guard: 'succeeded', target: '.terminated.succeeded' },
      { guard: 'failed', target: '.terminated.failed' },
      { guard: 'backingOff', target: '.restarting' },
      { guard: 'allReady', target: '.running.ready' },
      { guard: 'running', target: '.running.starting' },
      { guard: 'heldForVolumes', target: '.waiting.volumes' },
      { guard: 'initializing', target: '.waiting.initializing' },
      { target: '.waiting.creating' },
    ],
  },
  states: {
    observing: { description: 'not looked at yet' },
    waiting: {
      initial: 'creating',
      states: {
        volumes: {
          description: 'waiting for its volumes to be attached and mounted: nothing starts (FailedMount after the mount timeout)',
          meta: meta({ holds: () => 'waiting for its volumes to be attached and mounted' }),
        },
        initializing: {
          description: 'init containers run one after the other, the app containers wait (PodInitializing)',
          meta: meta({ holds: (f) => `${f.initsDone} of ${f.initContainers} init containers completed` }),
        },
        creating: {
          description: 'pulling the image and starting the containers (ContainerCreating)',
          meta: meta({ holds: (f) => `pulling ${f.image} and starting${f.startsInMs !== undefined ? `: runs in ${seconds(f.startsInMs)}` : ''}` }),
        },
      },
    },
    running: {
      initial: 'starting',
      states: {
        starting: {
          description: 'running, not every container ready yet (readiness or startup probes)',
          meta: meta({ holds: (f) => `${f.ready} of ${f.containers} containers ready${f.restarts ? `, ${f.restarts} restarts` : ''}` }),
        },
        ready: {
          tags: ['resting'],
          description: 'running and ready',
          meta: meta({ holds: (f) => `${f.containers} of ${f.containers} containers ready${f.restarts ? `, ${f.restarts} restarts` : ''}` }),
        },
      },
    },
    restarting: {
      description: 'exited and restarted by its restartPolicy after a back-off doubling per restart (CrashLoopBackOff)',
      meta: meta({ holds: (f) => `CrashLoopBackOff: restart ${f.restarts + 1} in ${seconds(f.backoffLeftMs)}` }),
    },
    terminated: {
      initial: 'succeeded',
      states: {
        succeeded: {
          tags: ['resting'],
          description: 'exited 0 and not restarted: phase Succeeded (Completed)',
          meta: meta({ holds: () => 'exit code 0' }),
        },
        failed: {
          tags: ['resting'],
          description: 'exited non-zero and not restarted: phase Failed (Error)',
          meta: meta({ holds: (f) => `exit code ${f.exitCode ?? ''}` }),
        },
      },
    },
  },
});

/** Followed per pod by the node agent (`svc nodes`), not by a controller: its chart is the node agent's. */
export const podLifecycle = defineLifecycle<PodFacts>('node-agent', 'Pod', podLifecycleMachine);
