/**
 * One simulated node's state outside its agent machine: its Node object as registered and
 * reported, its Lease, and the pods bound to it with their simulated lives (SimPod), their IPs
 * and their timers. Every write goes through the fleet's shared StatusWriter; every timer runs on
 * the fleet's clock. A crashed node freezes its pods (no timers, no writes) until it recovers.
 * Each step of a pod's life becomes the Events the established node agent records (source
 * `kubelet` and the node, fieldPath `spec.containers{name}`), through an EventRecorder that shares
 * the fleet's rate limit; a deleted pod is removed once its containers stopped.
 */
import type { PodFacts } from '../../machines/lifecycles/pod.js';
import type { LifecycleTracker } from '../runtime/lifecycle-tracker.js';
import type { Logger } from 'pino';
import type { Condition, Lease, Node, Pod } from '../api/generated/kinds.js';
import { podClaimNames, podClaimVolumes } from '../api/attachable-volumes.js';
import { rfc3339, rfc3339Micro } from '../api/time.js';
import type { Clock } from '../client/clock.js';
import { ApiError, type ApiClient } from '../client/types.js';
import { NODE_LEASE_NAMESPACE } from '../api/node-identity.js';
import { resources } from '../client/typed.js';
import { EventRecorder, type EventType } from '../runtime/event-recorder.js';
import type { NodeShape } from './node-shape.js';
import { podBehaviour, type NodeFault } from './sim-annotations.js';
import { PodIPPool } from './pod-ip-pool.js';
import { PodVolumes } from './pod-volumes.js';
import { SimPod, VOLUME_MOUNT_TIMEOUT_MS, type ContainerInfo, type SimTimings, type SimTransition } from './sim-pod.js';
import { nodeMetricsObject, podMetricsObject, podUsage, type ContainerUsage } from './sim-usage.js';
import type { StatusWriter } from './status-writer.js';
import { VolumesInUse } from './volumes-in-use.js';

export { NODE_LEASE_NAMESPACE };

export interface SimNodeContext {
  /** The node's own client: its writes (Node, Lease, pod status, deletions, Events) are made as the node. */
  client: ApiClient;
  /**
   * Writes that are not the node agent's in the established system (PodMetrics, NodeMetrics: a
   * metrics pipeline's, here the fleet's): made with the fleet's own identity. Default `client`.
   */
  metricsClient?: ApiClient;
  writer: StatusWriter;
  clock: Clock;
  logger: Logger;
  timings: SimTimings;
  leaseDurationSeconds: number;
  /** What `nodeInfo.kubeletVersion` says. */
  version: string;
  /** The fleet's rate limit on Events (shared by every node). */
  eventLimiter: { tryTake(): boolean };
  /** Where the fleet serves its node-agent endpoint (logs), published in each Node's status. */
  endpoint: { host: string; port: number } | undefined;
  /** Where each pod stands in its lifecycle (machines/lifecycles/pod.ts), shared by the fleet's nodes. */
  podLifecycle?: LifecycleTracker<PodFacts>;
}


/** Who else writes NetworkUnavailable: nodeipam (a node without a CIDR) and the route controller. */
const FOREIGN_NETWORK_REASONS = new Set(['CIDRNotAvailable', 'RouteCreated', 'NoRouteCreated']);
/** The established node agent's Event source component. */
export const NODE_AGENT_COMPONENT = 'kubelet';

interface TrackedPod {
  sim: SimPod;
  namespace: string;
  name: string;
  timer: unknown;
  /** A 53-bit hash of the status last written (the text itself would cost ~1 KB per pod). */
  lastStatus: number;
  /** The pod as last seen (its labels and usage annotations may change). */
  pod: Pod;
  /** Its containers' usage, when it reports any (sim-usage.ts). */
  usage: ContainerUsage[] | undefined;
  /** What its PodMetrics says now ('' when it has none). */
  usageText: string;
  /** Set once its removal (after the grace period) is queued or scheduled. */
  removal?: unknown;
  /** While it is held for its volumes: the timer of its next `FailedMount` Event. */
  mountTimer?: unknown;
}

/** The conditions a node reports, each with the fault that flips it. */
const CONDITIONS: { type: string; fault: NodeFault | undefined; healthy: [string, string, string]; faulty: [string, string, string] }[] = [
  { type: 'MemoryPressure', fault: 'memory-pressure', healthy: ['False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'], faulty: ['True', 'KubeletHasInsufficientMemory', 'kubelet has insufficient memory available'] },
  { type: 'DiskPressure', fault: 'disk-pressure', healthy: ['False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'], faulty: ['True', 'KubeletHasDiskPressure', 'kubelet has disk pressure'] },
  { type: 'PIDPressure', fault: 'pid-pressure', healthy: ['False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'], faulty: ['True', 'KubeletHasInsufficientPID', 'kubelet has insufficient PID available'] },
  { type: 'NetworkUnavailable', fault: 'network-unavailable', healthy: ['False', 'RouteCreated', 'simulated network is up'], faulty: ['True', 'NoRouteCreated', 'simulated network is down'] },
  { type: 'Ready', fault: 'not-ready', healthy: ['True', 'KubeletReady', 'kubelet is posting ready status'], faulty: ['False', 'KubeletNotReady', 'simulated node made not ready'] },
];

export class SimNode {
  readonly name: string;
  readonly hostIP: string;
  private uid = '';
  /** Its pods' addresses: from its podCIDRs once it has them (./pod-ip-pool.ts). */
  private readonly ips: PodIPPool;
  /** A NetworkUnavailable condition another component (the nodeipam controller) set on the Node: reported as is, not overwritten. */
  private foreignNetwork: Condition | undefined;
  private readonly pods = new Map<string, TrackedPod>();
  /** Pods that finished here (until they are deleted): an older event of theirs must not start them again. */
  private readonly finished = new Set<string>();
  private crashed = false;
  /** What this node's NodeMetrics says now ('' while it has none). */
  private nodeUsageText = '';
  /** Condition type -> [status, lastTransitionTime]. */
  private readonly transitions = new Map<string, [string, string]>();
  /** Images this node has pulled (IfNotPresent then finds them "already present"). */
  private readonly images = new Set<string>();
  private readonly recorder: EventRecorder;
  /** Pods that finished here, until deleted: their lives, for their logs. */
  private readonly finishedPods = new Map<string, SimPod>();
  /** Its pods' projected volumes (service-account tokens, the root CA, ...), filled as the node. */
  private readonly volumes: PodVolumes;
  /** The attachable volumes of its pods (`status.volumesInUse`). */
  private readonly inUse: VolumesInUse;
  /** Its Node's `status.volumesAttached` (unique volume names, sorted): what the attachdetach controller attached here. */
  private attached = new Set<string>();
  /** The faults of its last status report: a node whose heartbeats stopped writes no status. */
  private lastFaults: ReadonlySet<NodeFault> = new Set();

  constructor(
    readonly shape: NodeShape,
    readonly index: number,
    private readonly ctx: SimNodeContext,
  ) {
    this.name = shape.name;
    const n = index + 1;
    this.hostIP = shape.instance?.internalIP ?? `172.${16 + ((n >> 16) & 15)}.${(n >> 8) & 255}.${n & 255}`;
    this.ips = new PodIPPool(index);
    this.recorder = new EventRecorder({ client: ctx.client, component: NODE_AGENT_COMPONENT, host: shape.name, clock: ctx.clock, logger: ctx.logger, limiter: ctx.eventLimiter });
    this.volumes = new PodVolumes({ client: ctx.client, clock: ctx.clock, logger: ctx.logger, frozen: () => this.crashed });
    this.inUse = new VolumesInUse({ client: ctx.client, clock: ctx.clock, onChange: () => this.reportVolumesInUse(), onResolved: (uid) => this.checkVolumes(uid) });
  }

  /** What the projected volumes of pod `namespace/name` hold now, while it runs here. */
  podVolumeFiles(namespace: string, name: string): ReadonlyMap<string, ReadonlyMap<string, string>> | undefined {
    for (const [uid, p] of this.pods) if (p.name === name && p.namespace === namespace) return this.volumes.files(uid);
    return undefined;
  }

  /** The simulated life of pod `namespace/name` on this node (running or finished), if it is here. */
  findPod(namespace: string, name: string): SimPod | undefined {
    for (const p of this.pods.values()) if (p.name === name && p.namespace === namespace) return p.sim;
    for (const sim of this.finishedPods.values()) if (sim.name === name && sim.namespace === namespace) return sim;
    return undefined;
  }

  /** Number of pods this node is running (tracked, not finished). */
  get podCount(): number {
    return this.pods.size;
  }

  // ---- the node and its lease (called by the agent machine's hooks) ----

  /** Creates the Node, or adopts the one already there (a restarted fleet). */
  async register(): Promise<void> {
    const { client } = this.ctx;
    let node: Node;
    try {
      node = await client.get<Node>(resources.nodes, '', this.name);
    } catch (e) {
      if (!(e instanceof ApiError) || e.code !== 404) throw e;
      node = await client.create<Node>(resources.nodes, '', {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name: this.name, labels: { ...this.shape.labels } },
        spec: this.shape.taints.length ? { taints: this.shape.taints.map((t) => ({ ...t })) } : {},
      });
    }
    this.uid = node.metadata.uid ?? '';
    this.onNode(node);
  }

  /**
   * Its Node as the API has it now (registration, then every change the fleet's informer sees):
   * pod addresses follow `spec.podCIDRs` (or `spec.podCIDR`); a NetworkUnavailable condition the
   * nodeipam controller (reason CIDRNotAvailable) or the route controller (RouteCreated,
   * NoRouteCreated) set is kept in what this node reports, as a real node agent, which never
   * writes that condition, would leave it.
   */
  onNode(node: Node): void {
    const cidrs = node.spec?.podCIDRs?.length ? node.spec.podCIDRs : node.spec?.podCIDR ? [node.spec.podCIDR] : [];
    this.ips.setCidrs(cidrs);
    const net = node.status?.conditions?.find((c) => c.type === 'NetworkUnavailable');
    this.foreignNetwork = net && FOREIGN_NETWORK_REASONS.has(net.reason ?? '') ? net : undefined;
    const attached = (node.status?.volumesAttached ?? []).map((v) => String(v['name'] ?? '')).sort().join('\n');
    if (attached !== [...this.attached].join('\n')) {
      this.attached = new Set(attached ? attached.split('\n') : []);
      for (const uid of this.pods.keys()) this.checkVolumes(uid);
    }
  }

  renewLease(): void {
    const { client, clock, leaseDurationSeconds } = this.ctx;
    this.ctx.writer.enqueue(`lease/${this.name}`, async () => {
      const spec = { holderIdentity: this.name, leaseDurationSeconds, renewTime: rfc3339Micro(clock.now()) };
      try {
        await client.patch(resources.leases, NODE_LEASE_NAMESPACE, this.name, 'merge', { spec });
      } catch (e) {
        if (!(e instanceof ApiError) || e.code !== 404) throw e;
        const owner = this.uid ? [{ apiVersion: 'v1', kind: 'Node', name: this.name, uid: this.uid }] : undefined;
        const lease: Lease = { apiVersion: 'coordination.svc.io/v1', kind: 'Lease', metadata: { name: this.name, namespace: NODE_LEASE_NAMESPACE, ...(owner ? { ownerReferences: owner } : {}) }, spec };
        await client.create(resources.leases, NODE_LEASE_NAMESPACE, lease);
      }
    });
  }

  reportStatus(faults: ReadonlySet<NodeFault>): void {
    this.lastFaults = faults;
    const now = this.ctx.clock.now();
    const heartbeat = rfc3339(now);
    const conditions: Condition[] = CONDITIONS.map((c) => {
      if (c.type === 'NetworkUnavailable' && this.foreignNetwork && !(c.fault && faults.has(c.fault))) return { ...this.foreignNetwork };
      const [status, reason, message] = c.fault && faults.has(c.fault) ? c.faulty : c.healthy;
      const prev = this.transitions.get(c.type);
      const since = prev && prev[0] === status ? prev[1] : heartbeat;
      this.transitions.set(c.type, [status, since]);
      return { type: c.type, status, reason, message, lastHeartbeatTime: heartbeat, lastTransitionTime: since } as Condition;
    });
    const status = {
      capacity: { ...this.shape.capacity },
      allocatable: { ...this.shape.capacity },
      conditions,
      volumesInUse: this.inUse.names(),
      // The Hostname address is where the API server reaches this node's agent (the fleet's
      // endpoint, shared by all its nodes); InternalIP is the node's simulated address (pods' hostIP).
      addresses: [
        { type: 'InternalIP', address: this.hostIP },
        ...(this.shape.instance ? [{ type: 'ExternalIP', address: this.shape.instance.externalIP }] : []),
        { type: 'Hostname', address: this.ctx.endpoint?.host ?? this.name },
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: this.ctx.endpoint?.port ?? 0 } },
      nodeInfo: {
        machineID: this.uid.replace(/-/g, ''),
        systemUUID: this.uid,
        bootID: this.uid,
        kernelVersion: 'sim',
        osImage: 'svc simulated node',
        containerRuntimeVersion: 'sim://1.0.0',
        kubeletVersion: this.ctx.version,
        kubeProxyVersion: this.ctx.version,
        operatingSystem: this.shape.labels['svc.io/os'] ?? 'linux',
        architecture: this.shape.labels['svc.io/arch'] ?? 'amd64',
      },
    };
    this.ctx.writer.enqueue(`node/${this.name}`, async () => {
      await this.ctx.client.patch(resources.nodes, '', this.name, 'merge', { status }, { subresource: 'status' });
    });
  }

  /** Reports a changed `volumesInUse` at once (the attachdetach controller waits for it to detach). */
  private reportVolumesInUse(): void {
    if (this.crashed || this.lastFaults.has('stop-heartbeats') || this.lastFaults.has('crash')) return;
    this.ctx.writer.enqueue(`volumesinuse/${this.name}`, async () => {
      await this.ctx.client.patch(resources.nodes, '', this.name, 'merge', { status: { volumesInUse: this.inUse.names() } }, { subresource: 'status' });
    });
  }

  /** Crashing freezes every pod (timers off); recovering lets them catch up to now. */
  setCrashed(crashed: boolean): void {
    if (this.crashed === crashed) return;
    this.crashed = crashed;
    for (const [uid, p] of this.pods) {
      if (crashed) {
        this.ctx.clock.clearTimeout(p.timer);
        p.timer = undefined;
      } else this.tick(uid);
    }
  }

  // ---- pods (called by the fleet's pod informer) ----

  /** A pod bound to this node appeared or changed. */
  onPod(pod: Pod): void {
    const uid = pod.metadata.uid ?? '';
    let tracked = this.pods.get(uid);
    if (!tracked) {
      const phase = pod.status?.phase;
      if (phase === 'Succeeded' || phase === 'Failed' || this.finished.has(uid)) {
        // Its containers are gone already: a deletion needs no grace period.
        if (pod.metadata.deletionTimestamp) this.removeNow(uid, pod.metadata.namespace ?? '', pod.metadata.name ?? '');
        return;
      }
      const podIPs = pod.spec?.hostNetwork ? [this.hostIP] : this.allocateIPs();
      const sim = new SimPod(pod, this.ctx.timings, this.ctx.clock.now(), podIPs, this.hostIP);
      const usage = podUsage(pod, this.shape.podUsage);
      tracked = { sim, namespace: pod.metadata.namespace ?? '', name: pod.metadata.name ?? '', timer: undefined, lastStatus: 0, pod, usage, usageText: '' };
      this.pods.set(uid, tracked);
      if (!pod.metadata.deletionTimestamp && podClaimNames(pod).length > 0) {
        // Nothing starts before its claims' volumes are attached here (checkVolumes lets it go).
        sim.holdForVolumes();
        this.armMountTimer(uid, tracked);
      }
      if (!pod.metadata.deletionTimestamp) this.volumes.start(pod);
      if (!pod.metadata.deletionTimestamp) this.inUse.start(pod);
      if (!pod.metadata.deletionTimestamp) for (const c of [...sim.inits, ...sim.containers]) this.pullEvents(tracked, c, true);
      if (!this.crashed) this.tick(uid);
    } else if (tracked.pod !== pod) {
      // Labels or usage annotations may have changed: the metrics follow.
      tracked.pod = pod;
      tracked.usage = podUsage(pod, this.shape.podUsage);
      if (!this.crashed) this.reportUsage(uid, tracked);
    }
    if (pod.metadata.deletionTimestamp && tracked.removal === undefined) this.scheduleRemoval(uid, tracked, pod);
  }

  /** The pod is gone from the API: forget it and give its IP back. */
  onPodDeleted(pod: Pod): void {
    const uid = pod.metadata.uid ?? '';
    this.finished.delete(uid);
    this.finishedPods.delete(uid);
    this.volumes.stop(uid);
    this.inUse.stop(uid);
    this.ctx.podLifecycle?.forget(`${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''}`);
    const tracked = this.pods.get(uid);
    if (!tracked) return;
    this.ctx.clock.clearTimeout(tracked.timer);
    if (tracked.removal !== undefined) this.ctx.clock.clearTimeout(tracked.removal);
    this.ctx.clock.clearTimeout(tracked.mountTimer);
    this.pods.delete(uid);
    this.releaseIPs(tracked.sim);
    tracked.usage = undefined;
    this.reportUsage(uid, tracked);
  }

  /** Stops every timer (the node was deleted, or the fleet stops). */
  stop(): void {
    for (const p of this.pods.values()) {
      this.ctx.clock.clearTimeout(p.timer);
      if (p.removal !== undefined) this.ctx.clock.clearTimeout(p.removal);
      this.ctx.clock.clearTimeout(p.mountTimer);
    }
    this.volumes.stopAll();
    this.inUse.stopAll();
    this.pods.clear();
    this.finished.clear();
    this.finishedPods.clear();
  }

  /**
   * Lets a pod held for its volumes start once every claim resolved to its volume and each
   * attachable one is in this Node's `status.volumesAttached` (the established node agent's wait
   * for attach and mount; volumes that need no attach, e.g. hostPath, are ready once resolved).
   */
  private checkVolumes(uid: string): void {
    const p = this.pods.get(uid);
    if (!p || !p.sim.waitingForVolumes || p.pod.metadata.deletionTimestamp) return;
    const claims = this.inUse.podClaims(uid);
    if (!claims || [...claims.values()].some((name) => name === undefined || (name !== '' && !this.attached.has(name)))) return;
    this.ctx.clock.clearTimeout(p.mountTimer);
    p.mountTimer = undefined;
    p.sim.volumesReady(this.ctx.clock.now());
    this.ctx.clock.clearTimeout(p.timer);
    if (!this.crashed) this.tick(uid);
  }

  /** Each mount timeout a pod still waits for its volumes: the established `FailedMount` Event. */
  private armMountTimer(uid: string, p: TrackedPod): void {
    const timeout = this.ctx.timings.volumeMountTimeoutMs ?? VOLUME_MOUNT_TIMEOUT_MS;
    p.mountTimer = this.ctx.clock.setTimeout(() => {
      if (this.pods.get(uid) !== p || !p.sim.waitingForVolumes) return;
      if (!this.crashed) {
        const claims = this.inUse.podClaims(uid) ?? new Map<string, string | undefined>();
        const byVolume = podClaimVolumes(p.pod);
        const unmounted = byVolume.map(([volume]) => volume);
        const unattached = byVolume.filter(([, claim]) => {
          const name = claims.get(claim);
          return name === undefined || (name !== '' && !this.attached.has(name));
        }).map(([volume]) => volume);
        const pod = p.pod.kind ? p.pod : { ...p.pod, apiVersion: 'v1', kind: 'Pod' };
        void this.recorder.event(pod, 'Warning', 'FailedMount', `Unable to attach or mount volumes: unmounted volumes=[${unmounted.join(' ')}], unattached volumes=[${unattached.join(' ')}]: timed out waiting for the condition`);
      }
      this.armMountTimer(uid, p);
    }, timeout);
  }

  private tick(uid: string): void {
    const p = this.pods.get(uid);
    if (!p || this.crashed) return;
    const now = this.ctx.clock.now();
    for (const step of p.sim.advance(now)) this.transitionEvents(p, step);
    // The pod's lifecycle state decides what its status shows (tracked per pod when the fleet follows them).
    const state = this.ctx.podLifecycle?.observe(`${p.namespace}/${p.name}`, p.sim.lifecycleFacts(now)).state;
    const status = p.sim.status(now, state);
    const hash = hash53(JSON.stringify(status));
    if (hash !== p.lastStatus) {
      p.lastStatus = hash;
      const { namespace, name } = p;
      this.ctx.writer.enqueue(`pod/${uid}`, async () => {
        await this.ctx.client.patch(resources.pods, namespace, name, 'merge', { status }, { subresource: 'status' });
      });
    }
    this.reportUsage(uid, p);
    if (p.sim.finished && p.removal === undefined) {
      // Finished: nothing more happens to it here; its IP goes back to the pool.
      this.pods.delete(uid);
      this.ctx.clock.clearTimeout(p.mountTimer);
      this.volumes.stop(uid);
      this.inUse.stop(uid);
      this.finished.add(uid);
      this.finishedPods.set(uid, p.sim);
      this.releaseIPs(p.sim);
      return;
    }
    const next = p.sim.nextAt(now);
    p.timer = next === undefined ? undefined : this.ctx.clock.setTimeout(() => this.tick(uid), Math.max(0, next - now));
  }

  /**
   * Keeps the pod's PodMetrics (while it runs and reports usage) and the node's NodeMetrics (the
   * sum over its pods) in step with what they should say; each is one keyed, coalesced write.
   */
  private reportUsage(uid: string, p: TrackedPod): void {
    const { clock, writer } = this.ctx;
    const client = this.ctx.metricsClient ?? this.ctx.client;
    const usage = p.usage && this.pods.get(uid) === p && p.sim.phase() === 'Running' ? p.usage : undefined;
    const text = usage ? JSON.stringify([usage, p.pod.metadata.labels ?? {}]) : '';
    if (text === p.usageText) return;
    const had = p.usageText !== '';
    p.usageText = text;
    const { namespace, name, pod } = p;
    const ref = resources['pods.metrics.svc.io'];
    if (usage) {
      writer.enqueue(`podmetrics/${uid}`, async () => {
        const obj = podMetricsObject(pod, usage, clock.now());
        try {
          await client.update(ref, namespace, obj);
        } catch (e) {
          if (!(e instanceof ApiError) || e.code !== 404) throw e;
          await client.create(ref, namespace, obj);
        }
      });
    } else if (had) {
      writer.enqueue(`podmetrics/${uid}`, async () => {
        await client.delete(ref, namespace, name);
      });
    }
    this.reportNodeUsage();
  }

  private reportNodeUsage(): void {
    const { clock, writer } = this.ctx;
    const client = this.ctx.metricsClient ?? this.ctx.client;
    const reporting = [...this.pods.values()].filter((q) => q.usageText !== '').map((q) => q.usage!);
    if (!reporting.length && this.nodeUsageText === '') return;
    const text = JSON.stringify(nodeMetricsObject(this.name, reporting, 0).usage);
    if (text === this.nodeUsageText) return;
    this.nodeUsageText = text;
    const ref = resources['nodes.metrics.svc.io'];
    writer.enqueue(`nodemetrics/${this.name}`, async () => {
      const obj = nodeMetricsObject(this.name, reporting, clock.now());
      try {
        await client.update(ref, '', obj);
      } catch (e) {
        if (!(e instanceof ApiError) || e.code !== 404) throw e;
        await client.create(ref, '', obj);
      }
    });
  }

  private removeNow(uid: string, namespace: string, name: string): void {
    this.ctx.writer.enqueue(`pod/${uid}`, async () => {
      await this.ctx.client.delete(resources.pods, namespace, name, { gracePeriodSeconds: 0, preconditions: { uid } });
    });
  }

  /**
   * Stops the pod's containers (SIGTERM: a Killing event per running container) and removes the
   * pod once they have stopped: after their stop time (`sim.svc.io/stop-seconds`, default
   * `--container-stop-delay`), or the whole grace period when they ignore SIGTERM
   * (`sim.svc.io/ignore-sigterm`), counted from when this node saw the deletion, never longer than
   * the grace period; then deletes it with grace period 0 and a precondition on its uid.
   */
  private scheduleRemoval(uid: string, tracked: TrackedPod, pod: Pod): void {
    const grace = pod.metadata.deletionGracePeriodSeconds;
    // How the containers stop is read from the pod as deleted: annotations added while it ran count.
    const delay = tracked.sim.stopDelayMs(typeof grace === 'number' && grace > 0 ? grace * 1000 : 0, podBehaviour(pod.metadata.annotations));
    if (tracked.sim.running && !this.crashed) {
      for (const c of tracked.sim.containers) this.event(tracked, c, 'Normal', 'Killing', `Stopping container ${c.name}`);
    }
    const remove = () => {
      if (this.crashed) {
        tracked.removal = this.ctx.clock.setTimeout(remove, 1000);
        return;
      }
      this.ctx.clock.clearTimeout(tracked.timer);
      tracked.timer = undefined;
      this.removeNow(uid, tracked.namespace, tracked.name);
    };
    tracked.removal = this.ctx.clock.setTimeout(remove, delay);
  }

  /** Records one Event about a container of the pod, as the established node agent does. */
  private event(p: TrackedPod, c: ContainerInfo, type: EventType, reason: string, message: string): void {
    const pod = p.pod.kind ? p.pod : { ...p.pod, apiVersion: 'v1', kind: 'Pod' };
    const list = p.sim.inits.includes(c) ? 'initContainers' : 'containers';
    void this.recorder.event(pod, type, reason, message, { fieldPath: `spec.${list}{${c.name}}` });
  }

  /** Pulling (at first sight) or Pulled (when the container starts), by the container's pull policy. */
  private pullEvents(p: TrackedPod, c: ContainerInfo, atFirstSight: boolean): void {
    const present = c.pullPolicy === 'Never' || (c.pullPolicy !== 'Always' && this.images.has(c.image));
    if (atFirstSight) {
      if (!present) this.event(p, c, 'Normal', 'Pulling', `Pulling image "${c.image}"`);
      return;
    }
    if (present) {
      this.event(p, c, 'Normal', 'Pulled', `Container image "${c.image}" already present on machine`);
    } else {
      const took = `${this.ctx.timings.imagePullMs / 1000}s`;
      this.event(p, c, 'Normal', 'Pulled', `Successfully pulled image "${c.image}" in ${took} (${took} including waiting)`);
      this.images.add(c.image);
    }
  }

  /** The Events of one step of a pod's life: a start (Pulled, Created, Started), a crash loop (BackOff), a failed probe (Unhealthy) and the kill it causes (Killing). */
  private transitionEvents(p: TrackedPod, step: SimTransition): void {
    const { sim } = p;
    if (step.type === 'started') {
      const started = (c: ContainerInfo) => {
        if (step.restart === 0) this.pullEvents(p, c, false);
        else this.event(p, c, 'Normal', 'Pulled', `Container image "${c.image}" already present on machine`);
        this.event(p, c, 'Normal', 'Created', `Created container: ${c.name}`);
        this.event(p, c, 'Normal', 'Started', `Started container ${c.name}`);
      };
      if (step.restart === 0) sim.inits.forEach(started);
      sim.containers.forEach(started);
    } else if (step.type === 'backoff') {
      for (const c of sim.containers) this.event(p, c, 'Warning', 'BackOff', `Back-off restarting failed container ${c.name} in pod ${p.name}_${p.namespace}(${sim.uid})`);
    } else if (step.type === 'unhealthy') {
      // One per failed probe run; the recorder aggregates the repeats into one Event's count.
      this.event(p, sim.containers[step.container]!, 'Warning', 'Unhealthy', `${step.probe} probe failed: ${step.message}`);
    } else if (step.type === 'killed') {
      const c = sim.containers[step.container]!;
      this.event(p, c, 'Normal', 'Killing', `Container ${c.name} failed ${step.probe.toLowerCase()} probe${step.restart ? ', will be restarted' : ''}`);
    }
  }

  /** One address per podCIDR, none in use on this node; none at all when a range ran out (logged: the pod runs without an address). */
  private allocateIPs(): string[] {
    const ips = this.ips.take();
    if (ips) return ips;
    this.ctx.logger.warn({ node: this.name, podCIDRs: this.ips.cidrs }, 'simulated node ran out of pod IPs in its range; the pod gets none');
    return [];
  }

  private releaseIPs(sim: SimPod): void {
    if (sim.podIPs[0] === this.hostIP) return; // hostNetwork
    this.ips.give(sim.podIPs);
  }
}

/** cyrb53: a fast 53-bit string hash; a collision would only skip one status write. */
function hash53(text: string): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0) || 1;
}
