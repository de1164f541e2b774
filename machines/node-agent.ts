/**
 * One simulated node's agent: registers its Node, keeps its Lease renewed and its status current,
 * and shows the faults it is given. The I/O is the fleet's (hooks queue writes on the shared
 * writer); this machine decides when.
 *
 *   registering --registered--> up          registering --failed--> waiting --retry--> registering
 *   up (parallel):
 *     condition:  ready <-> notReady            (the `not-ready` fault)
 *     lease:      renew the Lease at once, then after a random part of leaseRenewMs (so a fleet
 *                 started together spreads out), then every leaseRenewMs ±10%
 *     status:     the same with statusReportMs (and a report on every fault change)
 *   up --stop-heartbeats--> silent (no lease, no status) --faults cleared--> up
 *   up | silent --crash--> crashed (no heartbeats, pods frozen) --crash cleared--> registering
 *   any --STOP--> stopped (final)
 *
 * Timers run on the actor's clock (the injected clock in tests). No actor per pod: pods are the
 * fleet's pod runner's business; where each pod stands is its lifecycle (./lifecycles/pod.ts),
 * which the node evaluates whenever it looks at the pod and which its chart draws next to this one.
 */
import { assign, fromPromise, setup, type ActorRefFrom } from 'xstate';

/**
 * A fault's name (src/nodes/sim-annotations.ts lists them all); the machine reacts to three of
 * them itself (`crash`, `stop-heartbeats`, `not-ready`) and hands every one to `reportStatus`.
 */
export type NodeFault = string;

export interface NodeAgentHooks {
  /** Creates or updates the Node object; rejects to retry. */
  register(): Promise<void>;
  renewLease(): void;
  /** Writes the node's status (conditions from `faults`, heartbeat time now). */
  reportStatus(faults: ReadonlySet<NodeFault>): void;
  /** The node crashed (true) or came back (false): its pods stop or resume. */
  setCrashed(crashed: boolean): void;
}

export interface NodeAgentTimings {
  leaseRenewMs: number;
  statusReportMs: number;
  registerRetryMs: number;
}

export interface NodeAgentInput {
  name: string;
  hooks: NodeAgentHooks;
  timings: NodeAgentTimings;
  /** Jitter source (default Math.random). */
  random?: () => number;
}

export type NodeAgentEvent = { type: 'FAULTS'; faults: ReadonlySet<NodeFault> } | { type: 'STOP' };

interface NodeAgentContext extends NodeAgentInput {
  faults: ReadonlySet<NodeFault>;
}

const jittered = (ms: number, random: (() => number) | undefined) => Math.round(ms * (0.9 + 0.2 * (random ?? Math.random)()));

export const nodeAgentMachine = setup({
  types: {} as { context: NodeAgentContext; input: NodeAgentInput; events: NodeAgentEvent },
  actors: {
    register: fromPromise<void, { hooks: NodeAgentHooks }>(({ input }) => input.hooks.register()),
  },
  delays: {
    leaseRenew: ({ context }) => jittered(context.timings.leaseRenewMs, context.random),
    statusReport: ({ context }) => jittered(context.timings.statusReportMs, context.random),
    leaseSpread: ({ context }) => Math.round(context.timings.leaseRenewMs * (context.random ?? Math.random)()),
    statusSpread: ({ context }) => Math.round(context.timings.statusReportMs * (context.random ?? Math.random)()),
    registerRetry: ({ context }) => context.timings.registerRetryMs,
  },
  guards: {
    crashing: ({ event }) => event.type === 'FAULTS' && event.faults.has('crash'),
    silencing: ({ event }) => event.type === 'FAULTS' && event.faults.has('stop-heartbeats'),
    notCrashing: ({ event }) => event.type === 'FAULTS' && !event.faults.has('crash'),
    notSilencing: ({ event }) => event.type === 'FAULTS' && !event.faults.has('stop-heartbeats') && !event.faults.has('crash'),
    silenced: ({ context }) => context.faults.has('stop-heartbeats'),
    notReadyFault: ({ context }) => context.faults.has('not-ready'),
    noNotReadyFault: ({ context }) => !context.faults.has('not-ready'),
  },
  actions: {
    setFaults: assign({ faults: ({ event, context }) => (event.type === 'FAULTS' ? event.faults : context.faults) }),
    renewLease: ({ context }) => context.hooks.renewLease(),
    reportStatus: ({ context }) => context.hooks.reportStatus(context.faults),
    crash: ({ context }) => context.hooks.setCrashed(true),
    recover: ({ context }) => context.hooks.setCrashed(false),
  },
}).createMachine({
  id: 'nodeAgent',
  context: ({ input }) => ({ ...input, faults: new Set<NodeFault>() }),
  initial: 'registering',
  on: { STOP: '.stopped' },
  states: {
    registering: {
      invoke: {
        src: 'register',
        input: ({ context }) => ({ hooks: context.hooks }),
        onDone: [{ guard: 'silenced', target: 'silent' }, { target: 'up' }],
        onError: 'waiting',
      },
      on: {
        FAULTS: [{ guard: 'crashing', target: 'crashed', actions: 'setFaults' }, { actions: 'setFaults' }],
      },
    },
    waiting: {
      after: { registerRetry: 'registering' },
      on: { FAULTS: [{ guard: 'crashing', target: 'crashed', actions: 'setFaults' }, { actions: 'setFaults' }] },
    },
    up: {
      type: 'parallel',
      on: {
        FAULTS: [
          { guard: 'crashing', target: 'crashed', actions: 'setFaults' },
          { guard: 'silencing', target: 'silent', actions: 'setFaults' },
          { actions: ['setFaults', 'reportStatus'] },
        ],
      },
      states: {
        condition: {
          initial: 'ready',
          states: {
            ready: { always: { guard: 'notReadyFault', target: 'notReady' } },
            notReady: { always: { guard: 'noNotReadyFault', target: 'ready' } },
          },
        },
        lease: {
          initial: 'spreading',
          states: {
            spreading: { entry: 'renewLease', after: { leaseSpread: 'renewing' } },
            renewing: {
              entry: 'renewLease',
              after: { leaseRenew: { target: 'renewing', reenter: true } },
            },
          },
        },
        status: {
          initial: 'spreading',
          states: {
            spreading: { entry: 'reportStatus', after: { statusSpread: 'reporting' } },
            reporting: {
              entry: 'reportStatus',
              after: { statusReport: { target: 'reporting', reenter: true } },
            },
          },
        },
      },
    },
    silent: {
      on: {
        FAULTS: [
          { guard: 'crashing', target: 'crashed', actions: 'setFaults' },
          { guard: 'notSilencing', target: 'up', actions: 'setFaults' },
          { actions: 'setFaults' },
        ],
      },
    },
    crashed: {
      entry: 'crash',
      exit: 'recover',
      on: { FAULTS: [{ guard: 'notCrashing', target: 'registering', actions: 'setFaults' }, { actions: 'setFaults' }] },
    },
    stopped: { type: 'final' },
  },
});

export type NodeAgentActor = ActorRefFrom<typeof nodeAgentMachine>;
