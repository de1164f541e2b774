/**
 * A fleet of simulated nodes in one process: one agent machine per node (registration, lease,
 * status, faults), and, shared by all of them, one pod informer routed by `spec.nodeName`, one
 * node informer (faults, deletions) and one StatusWriter (bounded, coalescing writes). It reaches
 * the API only through the client, like any node agent would.
 *
 * Guarantees: a pod bound to a fleet node goes Pending -> Running (-> Succeeded/Failed, or
 * restarts with back-off) as src/nodes/sim-pod.ts describes, with the established Events (a
 * fleet-wide rate limit bounds them); a pod being deleted is removed (grace period 0) once its
 * containers stopped (their stop time, or the whole grace period when they ignore SIGTERM); its
 * containers' simulated output is served by the fleet's node-agent endpoint (svclet-server.ts,
 * started by src/cli, found through `findPod`); a deleted Node stops its agent; the faults named in
 * a Node's `sim.svc.io/faults` annotation are shown within one informer event; pods take their
 * addresses from their node's `spec.podCIDRs` once it has them (./pod-ip-pool.ts). `stop()` ends every
 * timer and watch and waits for writes in flight.
 */
import { podLifecycle, type PodFacts } from '../../machines/lifecycles/pod.js';
import { LifecycleTracker } from '../runtime/lifecycle-tracker.js';
import type { Logger } from 'pino';
import { createActor, type InspectionEvent } from 'xstate';
import type { Node, Pod } from '../api/generated/kinds.js';
import { systemClock, type Clock } from '../client/clock.js';
import type { InformerEvent, InformerFactory } from '../client/informer-types.js';
import { resources } from '../client/typed.js';
import type { ApiClient } from '../client/types.js';
import { TokenBucket } from '../client/token-bucket.js';
import type { SimPod } from './sim-pod.js';
import { nodeAgentMachine, type NodeAgentActor, type NodeAgentTimings } from '../../machines/index.js';
import type { NodeShape } from './node-shape.js';
import { nodeFaults, type NodeFault } from './sim-annotations.js';
import { SimNode } from './sim-node.js';
import { DEFAULT_SIM_TIMINGS, type SimTimings } from './sim-pod.js';
import { StatusWriter } from './status-writer.js';

export interface FleetTimings extends SimTimings, NodeAgentTimings {
  /** `spec.leaseDurationSeconds` of each node's Lease (established: 40). */
  leaseDurationSeconds: number;
}

/** The established node agent's intervals: lease every 10 s, status at least every minute. */
export const DEFAULT_FLEET_TIMINGS: Readonly<FleetTimings> = Object.freeze({
  ...DEFAULT_SIM_TIMINGS,
  leaseRenewMs: 10_000,
  statusReportMs: 60_000,
  registerRetryMs: 2_000,
  leaseDurationSeconds: 40,
});

export interface NodeFleetOptions {
  /** The fleet's own client: its shared informers (every pod, every node) and the metrics writes. */
  client: ApiClient;
  /**
   * Each node's own client, for what the node agent writes (its Node, Lease, the status of its
   * pods, their deletion, Events): under the Node authorizer and NodeRestriction each node must
   * act as `system:node:<name>` (src/cli gives one impersonating client per node). Default: `client`.
   */
  clientFor?: (nodeName: string) => ApiClient;
  informers: InformerFactory;
  shapes: readonly NodeShape[];
  logger: Logger;
  clock?: Clock;
  timings?: Partial<FleetTimings>;
  /** Writes in flight at most (default 32). */
  writeConcurrency?: number;
  /** What the nodes report as their agent version. */
  version?: string;
  /**
   * Events the whole fleet records per second at most (0: no limit) and its burst; past them,
   * Events are dropped (default 25 and 250), so a fleet of thousands of pods costs the API server
   * a bounded number of Event writes.
   */
  eventQps?: number;
  eventBurst?: number;
  /** Where the fleet's node-agent endpoint (svclet-server.ts) is reached; published in each Node's status. */
  endpoint?: { host: string; port: number };
  /** xstate inspection, for /debug/machines. */
  inspect?: (event: InspectionEvent) => void;
  random?: () => number;
}

export const DEFAULT_EVENT_QPS = 25;
export const DEFAULT_EVENT_BURST = 250;

interface Member {
  node: SimNode;
  agent: NodeAgentActor;
  faultKey: string;
  /** The faults its Node's annotation names. */
  annotated: ReadonlySet<NodeFault>;
  /** Its cloud instance is stopped or gone (`setMachineDown`): it sends nothing, as stop-heartbeats. */
  machineDown: boolean;
}

export class NodeFleet {
  readonly timings: FleetTimings;
  readonly writer: StatusWriter;
  /** Where each of its pods stands in its lifecycle (machines/lifecycles/pod.ts): state, since, what holds it. */
  readonly podLifecycle: LifecycleTracker<PodFacts>;
  private readonly members = new Map<string, Member>();
  private readonly subscriptions: { unsubscribe(): void }[] = [];
  private readonly clock: Clock;
  private stopped = false;

  constructor(private readonly opts: NodeFleetOptions) {
    this.clock = opts.clock ?? systemClock;
    this.timings = { ...DEFAULT_FLEET_TIMINGS, ...opts.timings };
    this.writer = new StatusWriter({ clock: this.clock, logger: opts.logger, ...(opts.writeConcurrency ? { concurrency: opts.writeConcurrency } : {}) });
    this.podLifecycle = new LifecycleTracker(podLifecycle, { clock: this.clock });
  }

  /** Starts every agent and the shared informers. */
  start(): void {
    const { client, logger } = this.opts;
    const ctx = {
      client,
      writer: this.writer,
      clock: this.clock,
      logger,
      timings: this.timings,
      leaseDurationSeconds: this.timings.leaseDurationSeconds,
      version: this.opts.version ?? 'v0.0.0-sim',
      eventLimiter: new TokenBucket(this.opts.eventQps ?? DEFAULT_EVENT_QPS, this.opts.eventBurst ?? DEFAULT_EVENT_BURST, this.clock),
      endpoint: this.opts.endpoint,
      podLifecycle: this.podLifecycle,
    };
    this.opts.shapes.forEach((shape, index) => {
      const own = this.opts.clientFor?.(shape.name);
      const node = new SimNode(shape, index, own ? { ...ctx, client: own, metricsClient: client } : ctx);
      const agent = createActor(nodeAgentMachine, {
        id: `node/${shape.name}`,
        clock: this.clock,
        systemId: `node/${shape.name}`,
        ...(this.opts.inspect ? { inspect: this.opts.inspect } : {}),
        input: {
          name: shape.name,
          timings: this.timings,
          ...(this.opts.random ? { random: this.opts.random } : {}),
          hooks: {
            register: () => node.register(),
            renewLease: () => node.renewLease(),
            reportStatus: (faults: ReadonlySet<NodeFault>) => node.reportStatus(faults),
            setCrashed: (crashed: boolean) => node.setCrashed(crashed),
          },
        },
      });
      this.members.set(shape.name, { node, agent, faultKey: '', annotated: new Set(), machineDown: false });
      agent.start();
    });
    const pods = this.opts.informers.informer<Pod>(resources.pods);
    this.subscriptions.push(pods.events$.subscribe((e) => this.onPodEvent(e)));
    const nodes = this.opts.informers.informer<Node>(resources.nodes);
    this.subscriptions.push(nodes.events$.subscribe((e) => this.onNodeEvent(e)));
    logger.info({ nodes: this.members.size }, 'simulated nodes started');
  }

  /** Names of the fleet's nodes (in registration order). */
  nodeNames(): string[] {
    return [...this.members.keys()];
  }

  /** The agent of one node (for tests and /debug). */
  agent(name: string): NodeAgentActor | undefined {
    return this.members.get(name)?.agent;
  }

  /**
   * Resolves once every agent has registered its node (or is crashed or silent by request), or
   * after `timeoutMs`; gives how many have.
   */
  async registered(timeoutMs: number): Promise<number> {
    const done = () => [...this.members.values()].filter((m) => !m.agent.getSnapshot().matches('registering') && !m.agent.getSnapshot().matches('waiting')).length;
    const deadline = Date.now() + timeoutMs;
    while (done() < this.members.size && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    return done();
  }

  /**
   * The simulated life of pod `namespace/name` on one of the fleet's nodes (for its logs). A scan
   * of the fleet's pods (a log request is rare; an index would cost memory for every pod).
   */
  findPod(namespace: string, name: string): SimPod | undefined {
    for (const m of this.members.values()) {
      const sim = m.node.findPod(namespace, name);
      if (sim) return sim;
    }
    return undefined;
  }

  /** The node running pod `namespace/name` and what its projected volumes hold now (for the node-agent endpoint). */
  findPodVolumes(namespace: string, name: string): { node: string; files: ReadonlyMap<string, ReadonlyMap<string, string>> } | undefined {
    for (const m of this.members.values()) {
      const files = m.node.podVolumeFiles(namespace, name);
      if (files) return { node: m.node.name, files };
    }
    return undefined;
  }

  /** Pods the fleet is running (not finished, not removed). */
  podCount(): number {
    let n = 0;
    for (const m of this.members.values()) n += m.node.podCount;
    return n;
  }

  /** Stops every agent, timer and watch; waits (up to `graceMs`) for writes in flight. */
  async stop(graceMs = 5_000): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    for (const s of this.subscriptions) s.unsubscribe();
    for (const m of this.members.values()) {
      m.agent.send({ type: 'STOP' });
      m.node.stop();
    }
    await Promise.race([this.writer.idle(), new Promise((r) => setTimeout(r, graceMs).unref())]);
    this.writer.stop();
  }

  private onPodEvent(e: InformerEvent<Pod>): void {
    if (e.type === 'SYNCED' || this.stopped) return;
    const member = this.members.get(e.object.spec?.nodeName ?? '');
    if (!member) return;
    if (e.type === 'DELETED') member.node.onPodDeleted(e.object);
    else member.node.onPod(e.object);
  }

  private onNodeEvent(e: InformerEvent<Node>): void {
    if (e.type === 'SYNCED' || this.stopped) return;
    const member = this.members.get(e.object.metadata.name ?? '');
    if (!member) return;
    if (e.type === 'DELETED') {
      // A deleted Node stops its agent; its pods are left to the pod garbage collector.
      this.opts.logger.info({ node: member.node.name }, 'simulated node deleted; its agent stops');
      member.agent.send({ type: 'STOP' });
      member.node.stop();
      this.members.delete(member.node.name);
      return;
    }
    member.node.onNode(e.object);
    const { faults, unknown } = nodeFaults(e.object.metadata.annotations);
    if (unknown.length) this.opts.logger.warn({ node: member.node.name, unknown }, 'unknown simulated faults ignored');
    member.annotated = faults;
    this.sendFaults(member);
  }

  /**
   * The machine a node runs on stopped or went away (its cloud instance, svc nodes --cloud-provider),
   * or is back: while down the node's agent sends nothing, as with the stop-heartbeats fault.
   */
  setMachineDown(name: string, down: boolean): void {
    const member = this.members.get(name);
    if (!member || member.machineDown === down) return;
    member.machineDown = down;
    this.opts.logger.info({ node: name }, down ? "the node's machine is down: its agent goes silent" : "the node's machine is back: its agent reports again");
    this.sendFaults(member);
  }

  private sendFaults(member: Member): void {
    const faults = new Set(member.annotated);
    if (member.machineDown) faults.add('stop-heartbeats');
    const key = [...faults].sort().join(',');
    if (key === member.faultKey) return;
    member.faultKey = key;
    this.opts.logger.info({ node: member.node.name, faults: key || 'none' }, 'simulated node faults changed');
    member.agent.send({ type: 'FAULTS', faults });
  }
}
