/**
 * `Scheduler`: the state a scheduler keeps and the steps the scheduler machine
 * (machines/scheduler.ts) runs — informer events into the cache and the queue, one scheduling
 * cycle (`scheduleOne`), one binding (`bind`), the queue's flushes. It reaches the API server only
 * through the client and its informers, as any user's controller would.
 *
 * Guarantees:
 * - Pods whose `spec.schedulerName` names one of the profiles and whose `spec.nodeName` is empty
 *   are queued; a pod being deleted or already finished is not.
 * - A pod is assumed on its node in the same cycle that chose it, before any await; its binding
 *   runs afterwards. A failed binding forgets the assumption and puts the pod in back-off.
 * - Every attempt of a pending pod is recorded in the explanation store; an unschedulable pod gets
 *   `PodScheduled=False/Unschedulable` and a `FailedScheduling` Event with the established message.
 */
import type { Logger } from 'pino';
import type { Subscription } from 'rxjs';
import { resources } from '../client/typed.js';
import type { InformerEvent, InformerFactory, SharedInformer } from '../client/informer-types.js';
import type { ApiClient } from '../client/types.js';
import { rfc3339 } from '../api/time.js';
import { DEFAULT_SCHEDULER_NAME } from './config/default-plugins.js';
import { systemClock, type Clock } from '../client/clock.js';
import { EventRecorder } from '../runtime/event-recorder.js';
import { SchedulerCache } from './cache.js';
import { DEFAULT_FEATURES, type SchedulerConfiguration, type SchedulerFeatures } from './config/types.js';
import { CycleState } from './framework/cycle-state.js';
import type { Framework } from './framework/framework.js';
import { enqueueEvents, type ClusterAction, type ClusterEvent, type ClusterListers, type ClusterResource, type FilterRunner, type FrameworkHandle, type QueuedPodInfo } from './framework/interfaces.js';
import type {
  Node, PersistentVolume, PersistentVolumeClaim, Pod, PodDisruptionBudget, ReplicaSet, ReplicationController, Service, StatefulSet, StorageClass,
} from './framework/objects.js';
import { podKey } from './framework/objects.js';
import { newPodInfo, podPriority, type PodInfo, type ResolvedPriority } from './framework/pod-info.js';
import { Snapshot } from './framework/snapshot.js';
import { isSuccess, verdictReasons } from './framework/status.js';
import { ExplanationStore, groupVerdicts, deferScores, topScores, type SchedulingAttempt } from './explanations.js';
import type { SchedulerMetrics } from './metrics.js';
import { Nominator } from './nominator.js';
import { buildFramework } from './profile.js';
import { SchedulingQueue } from './queue.js';
import { yieldIfBusy } from '../runtime/event-loop-turn.js';
import { failedSchedulingMessage, PodScheduler, type ScheduleOutcome } from './schedule-one.js';
import type { SvcObject } from '../api/types.js';
import type { BindingWork, CycleResult, Scheduler as SchedulerSteps } from '../../machines/scheduler.js';

/** The field manager of the scheduler's writes (status conditions, nominations). */
export const SCHEDULER_FIELD_MANAGER = 'svc-scheduler';

export interface SchedulerOptions {
  client: ApiClient;
  informers: InformerFactory;
  configuration: SchedulerConfiguration;
  logger: Logger;
  clock?: Clock;
  random?: () => number;
  metrics?: SchedulerMetrics;
  /** Feature gates that change scheduling; default DEFAULT_FEATURES. */
  features?: SchedulerFeatures;
}

/** A pod assumed on a node, waiting for its binding cycle. */
export interface BindingTask extends BindingWork {
  readonly queued: QueuedPodInfo;
  readonly framework: Framework;
  readonly state: CycleState;
  readonly nodeName: string;
  readonly cycleStart: number;
}


/** The informers the scheduler uses, typed. */
interface SchedulerInformers {
  pods: SharedInformer<Pod>;
  nodes: SharedInformer<Node>;
  pvs: SharedInformer<PersistentVolume>;
  storageClasses: SharedInformer<StorageClass>;
  pvcs: SharedInformer<PersistentVolumeClaim>;
  services: SharedInformer<Service>;
  replicaSets: SharedInformer<ReplicaSet>;
  statefulSets: SharedInformer<StatefulSet>;
  replicationControllers: SharedInformer<ReplicationController>;
  namespaces: SharedInformer<SvcObject>;
  pdbs: SharedInformer<PodDisruptionBudget>;
}

export class Scheduler implements SchedulerSteps {
  readonly cache: SchedulerCache;
  readonly queue: SchedulingQueue;
  readonly explanations = new ExplanationStore();
  readonly nominator = new Nominator();
  readonly frameworks = new Map<string, Framework>();
  readonly logger: Logger;
  private readonly snapshot = new Snapshot();
  private readonly podScheduler: PodScheduler;
  private readonly clock: Clock;
  private readonly inf: SchedulerInformers;
  private readonly recorder: EventRecorder;
  private readonly subs: Subscription[] = [];
  private readonly features: SchedulerFeatures;
  /** The informer caches plugins read (services, volumes, budgets ...). */
  readonly listers: ClusterListers;
  /** Counts of what happened, for the machine page. */
  readonly counters = { scheduled: 0, unschedulable: 0, errors: 0, bindings: 0, bindingFailures: 0 };

  constructor(private readonly opts: SchedulerOptions) {
    this.clock = opts.clock ?? systemClock;
    this.logger = opts.logger;
    const now = () => this.clock.now();
    this.features = opts.features ?? DEFAULT_FEATURES;
    this.cache = new SchedulerCache(now, undefined, (pod) => this.podInfo(pod));
    const f = opts.informers;
    this.inf = {
      pods: f.informer<Pod>(resources.pods),
      nodes: f.informer<Node>(resources.nodes),
      pvs: f.informer<PersistentVolume>(resources.persistentvolumes),
      pvcs: f.informer<PersistentVolumeClaim>(resources.persistentvolumeclaims),
      storageClasses: f.informer<StorageClass>(resources.storageclasses),
      services: f.informer<Service>(resources.services),
      replicaSets: f.informer<ReplicaSet>(resources.replicasets),
      statefulSets: f.informer<StatefulSet>(resources.statefulsets),
      replicationControllers: f.informer<ReplicationController>(resources.replicationcontrollers),
      namespaces: f.informer(resources.namespaces),
      pdbs: f.informer<PodDisruptionBudget>(resources.poddisruptionbudgets),
    };
    const inf = this.inf;
    this.listers = {
      services: (ns) => inf.services.cache.list(ns),
      replicaSets: (ns) => inf.replicaSets.cache.list(ns),
      statefulSets: (ns) => inf.statefulSets.cache.list(ns),
      replicationControllers: (ns) => inf.replicationControllers.cache.list(ns),
      persistentVolumeClaim: (ns, name) => inf.pvcs.cache.get(`${ns}/${name}`),
      persistentVolume: (name) => inf.pvs.cache.get(name),
      persistentVolumes: () => inf.pvs.cache.list(),
      storageClass: (name) => inf.storageClasses.cache.get(name),
      namespaceLabels: (name) => inf.namespaces.cache.get(name)?.metadata.labels,
      podDisruptionBudgets: (ns) => inf.pdbs.cache.list(ns),
      node: (name) => inf.nodes.cache.get(name),
    };
    const cfg = opts.configuration;
    cfg.profiles.forEach((p, i) => {
      if (this.frameworks.has(p.schedulerName)) throw new Error(`profiles[${i}].schedulerName: duplicate scheduler name ${p.schedulerName}`);
      this.frameworks.set(p.schedulerName, buildFramework(p, this.handle(p.schedulerName), `profiles[${i}]`));
    });
    const first = this.frameworks.values().next().value as Framework;
    const pluginEvents = new Map<string, readonly ClusterEvent[]>();
    for (const fwk of this.frameworks.values()) for (const p of fwk.allPlugins()) pluginEvents.set(p.name, enqueueEvents(p));
    this.queue = new SchedulingQueue({
      now,
      less: (a, b) => first.queueSort.less(a, b),
      pluginEvents,
      podInitialBackoffMs: cfg.podInitialBackoffSeconds * 1000,
      podMaxBackoffMs: cfg.podMaxBackoffSeconds * 1000,
    });
    opts.metrics?.readQueueLengthsFrom(() => this.queue.lengths());
    this.podScheduler = new PodScheduler({
      percentageOfNodesToScore: cfg.percentageOfNodesToScore,
      nominatedPodsFor: (node) => this.nominator.podsOn(node),
      anyNominated: () => this.nominator.nodeCount > 0,
      ...(opts.random ? { random: opts.random } : {}),
    });
    this.recorder = new EventRecorder({ client: opts.client, component: first.profileName, clock: this.clock, logger: this.logger });
  }

  /** What the plugins of profile `schedulerName` may use. */
  private handle(schedulerName: string): FrameworkHandle {
    const listers = this.listers;
    return {
      snapshot: () => this.snapshot,
      listers,
      client: this.opts.client,
      schedulerName,
      now: () => this.clock.now(),
      nominatedPodsFor: (node) => this.nominator.podsOn(node),
      event: (pod, type, reason, message) => void this.recorder.event(pod, type, reason, message),
      filters: (): FilterRunner => {
        const fwk = this.frameworks.get(schedulerName);
        if (!fwk) throw new Error(`profile ${schedulerName} is not built yet`);
        return fwk;
      },
    };
  }

  /** Every informer the scheduler waits for before its first cycle. */
  informers(): SharedInformer[] {
    return Object.values(this.inf);
  }

  hasSynced(): boolean {
    return this.informers().every((i) => i.hasSynced());
  }

  nodeCount(): number {
    return this.cache.nodeCount;
  }

  /** Subscribes the cache and queue to the informers; `onSynced` once all have synced. */
  startFeeding(cb: { onSynced(): void; onActive(): void; onFailed(err: unknown): void }): void {
    const onSynced = () => cb.onSynced();
    const onFailed = (err: unknown) => cb.onFailed(err);
    this.queue.onActive = () => cb.onActive();
    let synced = false;
    const check = () => {
      if (!synced && this.hasSynced()) {
        synced = true;
        onSynced();
      }
    };
    const watch = <T extends SvcObject>(i: SharedInformer<T>, fn: (ev: Exclude<InformerEvent<T>, { type: 'SYNCED' }>) => void) =>
      this.subs.push(
        i.events$.subscribe({
          next: (ev) => (ev.type === 'SYNCED' ? check() : fn(ev)),
          error: onFailed,
        }),
      );
    watch(this.inf.nodes, (ev) => this.onNode(ev));
    watch(this.inf.pods, (ev) => this.onPod(ev));
    const moveOn = (resource: ClusterResource) => (ev: { type: string }) => this.queue.moveOnEvent(resource, actionOf(ev.type));
    watch(this.inf.pvs, moveOn('PersistentVolume'));
    watch(this.inf.pvcs, moveOn('PersistentVolumeClaim'));
    watch(this.inf.storageClasses, moveOn('StorageClass'));
    watch(this.inf.services, moveOn('Service'));
    watch(this.inf.namespaces, moveOn('Namespace'));
    watch(this.inf.pdbs, moveOn('PodDisruptionBudget'));
    watch(this.inf.replicaSets, () => {});
    watch(this.inf.statefulSets, () => {});
    watch(this.inf.replicationControllers, () => {});
    check();
  }

  stopFeeding(): void {
    this.queue.onActive = () => {};
    for (const s of this.subs.splice(0)) s.unsubscribe();
  }

  // ---- informer events -------------------------------------------------------------------

  private onNode(ev: Exclude<InformerEvent<Node>, { type: 'SYNCED' }>): void {
    if (ev.type === 'DELETED') {
      this.cache.removeNode(ev.object);
      return;
    }
    this.cache.addNode(ev.object);
    this.queue.moveOnEvent('Node', ev.type === 'ADDED' ? 'Add' : 'Update');
  }

  private responsibleFor(pod: Pod): boolean {
    return this.frameworks.has(pod.spec?.schedulerName ?? DEFAULT_SCHEDULER_NAME);
  }

  private onPod(ev: Exclude<InformerEvent<Pod>, { type: 'SYNCED' }>): void {
    const pod = ev.object;
    const key = podKey(pod);
    if (ev.type === 'DELETED') {
      if (pod.spec?.nodeName || this.cache.nodeOf(pod.metadata.uid ?? '') !== undefined) {
        this.cache.removePod(pod);
        this.queue.moveOnEvent('Pod', 'Delete');
      }
      this.queue.delete(key);
      this.nominator.delete(key);
      this.explanations.finish(key, 'deleted');
      return;
    }
    if (pod.spec?.nodeName) {
      // Bound (by us or anyone): count it on its node; it leaves the queue.
      const terminal = pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
      if (terminal) this.cache.removePod(pod);
      else this.cache.addPod(pod);
      if (this.queue.has(key)) this.queue.delete(key);
      this.nominator.delete(key);
      this.explanations.finish(key, `bound to ${pod.spec.nodeName}`);
      this.queue.moveOnEvent('Pod', ev.type === 'ADDED' ? 'Add' : terminal ? 'Delete' : 'Update');
      return;
    }
    if (!this.responsibleFor(pod) || pod.metadata.deletionTimestamp) {
      this.queue.delete(key);
      return;
    }
    // Assumed and binding: the unbound copy is stale news.
    if (this.cache.isAssumed(pod.metadata.uid ?? '')) return;
    const info = this.podInfo(pod);
    const nominated = pod.status?.nominatedNodeName;
    if (nominated) this.nominator.set(info, nominated);
    if (ev.type === 'ADDED') this.queue.add(info);
    else this.queue.update(info);
  }

  /** The scheduler's view of a pod: priority resolved, requests counted as the feature gates say. */
  podInfo(pod: Pod): PodInfo {
    return newPodInfo(pod, this.priorityOf(pod), { podOverhead: this.features.podOverhead });
  }

  /**
   * Priority: `spec.priority` (else 0) and `spec.preemptionPolicy`, as established: the Priority
   * admission plugin wrote both from the pod's PriorityClass when the pod was created, so the
   * scheduler never reads PriorityClasses (a class changed or deleted later does not change a pod).
   */
  priorityOf(pod: Pod): ResolvedPriority {
    const own = podPriority(pod);
    // Without the NonPreemptingPriority gate every pod may preempt, as established.
    return { priority: own.priority, preemptionPolicy: this.features.nonPreemptingPriority ? own.preemptionPolicy : 'PreemptLowerPriority' };
  }

  // ---- the scheduling cycle -------------------------------------------------------------

  hasActivePods(): boolean {
    return this.queue.lengths().active > 0;
  }

  /** Takes the next pod and decides its node; resolves with what happened. */
  async scheduleOne(): Promise<CycleResult> {
    // Bindings, watch events and the lease's renewal timer get a turn between cycles.
    const turn = yieldIfBusy();
    if (turn) await turn;
    const q = this.queue.pop();
    if (!q) return { kind: 'idle' };
    const cycle = this.queue.schedulingCycle;
    const pod = q.podInfo;
    const fwk = this.frameworks.get(pod.pod.spec?.schedulerName ?? DEFAULT_SCHEDULER_NAME);
    if (!fwk) return { kind: 'skipped', pod: pod.key };
    const current = this.inf.pods.cache.get(pod.key);
    if (!current || current.metadata.uid !== pod.uid || current.spec?.nodeName || current.metadata.deletionTimestamp) return { kind: 'skipped', pod: pod.key };
    const start = this.clock.now();
    this.cache.updateSnapshot(this.snapshot);
    const state = new CycleState();
    const outcome = this.podScheduler.schedule(fwk, state, pod, this.snapshot);
    this.opts.metrics?.algorithmLatency.observe((this.clock.now() - start) / 1000);
    if (outcome.kind === 'scheduled') {
      this.cache.assume(pod, outcome.nodeName);
      const reserved = fwk.runReserve(state, pod, outcome.nodeName);
      if (!isSuccess(reserved)) {
        this.cache.forget(pod.uid);
        const message = verdictReasons(reserved).join(', ');
        this.record(q, fwk, outcome, 'Error', message);
        this.queue.requeueFailed(q, cycle, 'error');
        this.count('error', fwk);
        return { kind: 'error', pod: pod.key, message };
      }
      this.nominator.delete(pod.key);
      this.record(q, fwk, outcome, 'Scheduled', `assumed on ${outcome.nodeName}`, outcome.nodeName);
      const binding: BindingTask = { podUid: pod.uid, queued: q, framework: fwk, state, nodeName: outcome.nodeName, cycleStart: start };
      return { kind: 'scheduled', binding };
    }
    if (outcome.kind === 'error') {
      this.record(q, fwk, outcome, 'Error', outcome.message);
      this.queue.requeueFailed(q, cycle, 'error');
      this.count('error', fwk);
      this.logger.error({ pod: pod.key, err: outcome.message }, 'error scheduling pod; retrying');
      return { kind: 'error', pod: pod.key, message: outcome.message };
    }
    // Unschedulable: let post-filter (preemption) try to make room.
    let nominatedNode: string | undefined;
    if (fwk.postFilters.length > 0) {
      this.opts.metrics?.preemptionAttempts.inc();
      const pf = await fwk.runPostFilter(state, pod, outcome.diagnosis.nodeVerdicts);
      if (isSuccess(pf.verdict) && pf.nominatedNodeName) {
        nominatedNode = pf.nominatedNodeName;
        this.opts.metrics?.preemptionVictims.observe(pf.victims ?? 0);
      }
    }
    const message = failedSchedulingMessage(outcome.numAllNodes, outcome.diagnosis);
    this.record(q, fwk, outcome, 'Unschedulable', message, undefined, nominatedNode);
    q.unschedulablePlugins = outcome.diagnosis.unschedulablePlugins;
    this.queue.requeueFailed(q, cycle, 'unschedulable');
    if (nominatedNode) this.nominator.set(pod, nominatedNode);
    this.count('unschedulable', fwk);
    void this.reportUnschedulable(pod.pod, message, nominatedNode);
    return { kind: 'unschedulable', pod: pod.key, ...(nominatedNode ? { nominatedNode } : {}) };
  }

  /** The binding cycle of an assumed pod: pre-bind, bind; on failure forget and back off. */
  async bind(work: BindingWork): Promise<boolean> {
    const task = work as BindingTask;
    const { queued, framework: fwk, state, nodeName } = task;
    const pod = queued.podInfo;
    const start = this.clock.now();
    let verdict = await fwk.runPreBind(state, pod, nodeName);
    if (isSuccess(verdict)) verdict = await fwk.runBind(state, pod, nodeName);
    const end = this.clock.now();
    this.opts.metrics?.bindingLatency.observe((end - start) / 1000);
    if (isSuccess(verdict)) {
      this.cache.finishBinding(pod.uid);
      this.counters.bindings++;
      this.count('scheduled', fwk);
      this.opts.metrics?.e2eLatency.observe({ result: 'scheduled', profile: fwk.profileName }, (end - queued.initialAttemptTimestamp) / 1000);
      void this.recorder.event(pod.pod, 'Normal', 'Scheduled', `Successfully assigned ${pod.key} to ${nodeName}`);
      return true;
    }
    this.counters.bindingFailures++;
    const message = verdictReasons(verdict).join(', ');
    this.logger.warn({ pod: pod.key, node: nodeName, err: message }, 'binding failed; forgetting the assumed pod');
    this.cache.forget(pod.uid);
    fwk.runUnreserve(state, pod, nodeName);
    this.count('error', fwk);
    const attempt = this.explanations.get(pod.key);
    if (attempt) {
      attempt.result = 'Error';
      attempt.message = `binding to ${nodeName} failed: ${message}`;
    }
    // The pod may be gone or bound by someone else: only requeue while it still waits.
    const current = this.inf.pods.cache.get(pod.key);
    if (current && current.metadata.uid === pod.uid && !current.spec?.nodeName) this.queue.requeueFailed(queued, this.queue.schedulingCycle, 'error');
    this.queue.moveOnEvent('Pod', 'Delete');
    return false;
  }

  flushBackoff(): number {
    return this.queue.flushBackoffCompleted();
  }

  flushUnschedulable(): number {
    for (const key of this.cache.cleanupExpiredAssumed()) this.logger.warn({ pod: key }, 'assumed pod expired without its binding being observed');
    return this.queue.flushUnschedulableLeftover();
  }

  // ---- helpers ----------------------------------------------------------------------------

  private count(result: 'scheduled' | 'unschedulable' | 'error', fwk: Framework): void {
    if (result === 'scheduled') this.counters.scheduled++;
    else if (result === 'unschedulable') this.counters.unschedulable++;
    else this.counters.errors++;
    this.opts.metrics?.attempts.inc({ result, profile: fwk.profileName });
  }

  private record(q: QueuedPodInfo, fwk: Framework, o: ScheduleOutcome, result: SchedulingAttempt['result'], message: string, node?: string, nominatedNode?: string): void {
    const a: SchedulingAttempt = {
      pod: q.podInfo.key,
      uid: q.podInfo.uid,
      profile: fwk.profileName,
      attempt: q.attempts,
      time: new Date(this.clock.now()).toISOString(),
      result,
      message,
      numAllNodes: this.snapshot.size,
      evaluatedNodes: o.kind === 'scheduled' ? o.evaluatedNodes : o.diagnosis.nodeVerdicts.size,
      feasibleNodes: o.kind === 'scheduled' ? o.feasibleNodes : 0,
      filtered: groupVerdicts(o.diagnosis),
      scores: [],
      ...(node ? { node } : {}),
      ...(nominatedNode ? { nominatedNode } : {}),
    };
    if (o.kind === 'scheduled') deferScores(a, () => topScores(o.scores, o.pluginScores));
    this.explanations.record(a);
  }

  /** PodScheduled=False/Unschedulable (and the nomination) on the pod, and a FailedScheduling Event. */
  private async reportUnschedulable(pod: Pod, message: string, nominatedNode: string | undefined): Promise<void> {
    const cached = this.inf.pods.cache.get(podKey(pod)) ?? pod;
    const conditions = (cached.status?.conditions ?? []).filter((c) => c.type !== 'PodScheduled');
    const prev = (cached.status?.conditions ?? []).find((c) => c.type === 'PodScheduled');
    const same = prev && prev.status === 'False' && prev.reason === 'Unschedulable' && prev.message === message;
    const now = rfc3339(this.clock.now());
    conditions.push({ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message, lastProbeTime: null, lastTransitionTime: same ? prev.lastTransitionTime : now } as never);
    const status: Record<string, unknown> = { conditions };
    if (nominatedNode) status['nominatedNodeName'] = nominatedNode;
    if (!same || nominatedNode !== cached.status?.nominatedNodeName) {
      try {
        await this.opts.client.patch(resources.pods, pod.metadata.namespace ?? '', pod.metadata.name ?? '', 'merge', { status }, { subresource: 'status', fieldManager: SCHEDULER_FIELD_MANAGER });
      } catch (err) {
        this.logger.debug({ pod: podKey(pod), err }, 'could not update the PodScheduled condition');
      }
    }
    await this.recorder.event(pod, 'Warning', 'FailedScheduling', message);
  }
}

function actionOf(type: string): ClusterAction {
  return type === 'ADDED' ? 'Add' : type === 'DELETED' ? 'Delete' : 'Update';
}
