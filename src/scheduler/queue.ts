/**
 * The scheduling queue: three places a pending pod can be.
 *
 * - active: ordered by the profile's queue sort (priority, then arrival); `pop` takes the first.
 * - back-off: pods that failed recently, each until `initial * 2^(attempts-1)` (capped at max) has
 *   passed since its last attempt; `flushBackoffCompleted` moves the expired ones to active.
 * - unschedulable: pods no node fits. A cluster event moves those back whose refusing plugins
 *   declared that event (`moveOnEvent`); `flushUnschedulableLeftover` moves every pod parked longer
 *   than `maxUnschedulableMs` (60 s) so nothing waits forever on an event the plugins did not name.
 *
 * A pod that fails while an event arrived during its cycle goes to back-off, not unschedulable:
 * the event might have made it fit (the established "move request cycle").
 * Time comes from the injected `now`; the queue sets no timers (the scheduler machine's delayed
 * transitions call the flushes).
 */
import { KeyedHeap } from './heap.js';
import type { ClusterAction, ClusterEvent, ClusterResource, QueuedPodInfo } from './framework/interfaces.js';
import type { PodInfo } from './framework/pod-info.js';

export const DEFAULT_POD_INITIAL_BACKOFF_MS = 1_000;
export const DEFAULT_POD_MAX_BACKOFF_MS = 10_000;
/** The longest a pod stays parked as unschedulable without a new attempt. */
export const DEFAULT_MAX_UNSCHEDULABLE_MS = 60_000;

export interface SchedulingQueueOptions {
  now: () => number;
  less: (a: QueuedPodInfo, b: QueuedPodInfo) => boolean;
  /** Plugin name -> the cluster events that can make a pod it refused schedulable. */
  pluginEvents: ReadonlyMap<string, readonly ClusterEvent[]>;
  podInitialBackoffMs?: number;
  podMaxBackoffMs?: number;
  maxUnschedulableMs?: number;
}

export interface QueueLengths {
  active: number;
  backoff: number;
  unschedulable: number;
}

export class SchedulingQueue {
  private readonly active: KeyedHeap<QueuedPodInfo>;
  private readonly backoff: KeyedHeap<QueuedPodInfo>;
  private readonly unschedulable = new Map<string, QueuedPodInfo>();
  private readonly now: () => number;
  private readonly initialBackoff: number;
  private readonly maxBackoff: number;
  private readonly maxUnschedulable: number;
  private readonly pluginEvents: ReadonlyMap<string, readonly ClusterEvent[]>;
  /** Counts pops: the cycle a popped pod belongs to. */
  schedulingCycle = 0;
  /** The cycle in which the last move request (cluster event) happened. */
  private moveRequestCycle = -1;
  /** Called when the active queue goes from empty to non-empty. */
  onActive: () => void = () => {};

  constructor(opts: SchedulingQueueOptions) {
    this.now = opts.now;
    this.initialBackoff = opts.podInitialBackoffMs ?? DEFAULT_POD_INITIAL_BACKOFF_MS;
    this.maxBackoff = opts.podMaxBackoffMs ?? DEFAULT_POD_MAX_BACKOFF_MS;
    this.maxUnschedulable = opts.maxUnschedulableMs ?? DEFAULT_MAX_UNSCHEDULABLE_MS;
    this.pluginEvents = opts.pluginEvents;
    this.active = new KeyedHeap((q) => q.podInfo.key, opts.less);
    this.backoff = new KeyedHeap((q) => q.podInfo.key, (a, b) => this.backoffExpiry(a) < this.backoffExpiry(b));
  }

  lengths(): QueueLengths {
    return { active: this.active.size, backoff: this.backoff.size, unschedulable: this.unschedulable.size };
  }

  has(key: string): boolean {
    return this.active.has(key) || this.backoff.has(key) || this.unschedulable.has(key);
  }

  /** A new pending pod. */
  add(podInfo: PodInfo): void {
    const key = podInfo.key;
    const now = this.now();
    const existing = this.active.get(key) ?? this.backoff.get(key) ?? this.unschedulable.get(key);
    if (existing) {
      this.update(podInfo);
      return;
    }
    this.pushActive({ podInfo, initialAttemptTimestamp: now, timestamp: now, attempts: 0, unschedulablePlugins: new Set() });
  }

  /** A pending pod changed: its new version replaces the old; a parked pod gets another attempt (the change may make it fit). */
  update(podInfo: PodInfo): void {
    const key = podInfo.key;
    const inActive = this.active.get(key);
    if (inActive) {
      inActive.podInfo = podInfo;
      this.active.push(inActive);
      return;
    }
    const inBackoff = this.backoff.get(key);
    if (inBackoff) {
      inBackoff.podInfo = podInfo;
      this.backoff.push(inBackoff);
      return;
    }
    const parked = this.unschedulable.get(key);
    if (parked) {
      parked.podInfo = podInfo;
      this.moveFromUnschedulable(parked);
      return;
    }
    this.add(podInfo);
  }

  delete(key: string): void {
    this.active.delete(key);
    this.backoff.delete(key);
    this.unschedulable.delete(key);
  }

  /** The next pod to schedule, or undefined when the active queue is empty. */
  pop(): QueuedPodInfo | undefined {
    const q = this.active.pop();
    if (!q) return undefined;
    q.attempts++;
    this.schedulingCycle++;
    return q;
  }

  /**
   * A pod whose attempt in `cycle` failed: parked as unschedulable, or in back-off when a cluster
   * event arrived since that cycle began (or the failure was an error, not a rejection).
   */
  requeueFailed(q: QueuedPodInfo, cycle: number, reason: 'unschedulable' | 'error'): void {
    const key = q.podInfo.key;
    if (this.has(key)) return;
    q.timestamp = this.now();
    if (reason === 'error' || this.moveRequestCycle >= cycle) this.backoff.push(q);
    else this.unschedulable.set(key, q);
  }

  /** Moves back-off pods whose back-off has expired to the active queue. */
  flushBackoffCompleted(): number {
    const now = this.now();
    let moved = 0;
    for (;;) {
      const head = this.backoff.peek();
      if (!head || this.backoffExpiry(head) > now) break;
      this.backoff.pop();
      this.pushActive(head);
      moved++;
    }
    return moved;
  }

  /** Moves pods parked longer than the maximum back to active (or back-off). */
  flushUnschedulableLeftover(): number {
    const now = this.now();
    const stale: QueuedPodInfo[] = [];
    for (const q of this.unschedulable.values()) if (now - q.timestamp >= this.maxUnschedulable) stale.push(q);
    for (const q of stale) this.moveFromUnschedulable(q);
    return stale.length;
  }

  /**
   * A cluster event: moves each parked pod refused by a plugin that declared the event (or by no
   * named plugin) to back-off or active. Returns how many moved.
   */
  moveOnEvent(resource: ClusterResource, action: ClusterAction): number {
    this.moveRequestCycle = this.schedulingCycle;
    const moving: QueuedPodInfo[] = [];
    for (const q of this.unschedulable.values()) if (this.interested(q, resource, action)) moving.push(q);
    for (const q of moving) this.moveFromUnschedulable(q);
    return moving.length;
  }

  private interested(q: QueuedPodInfo, resource: ClusterResource, action: ClusterAction): boolean {
    if (q.unschedulablePlugins.size === 0) return true;
    for (const plugin of q.unschedulablePlugins) {
      const events = this.pluginEvents.get(plugin);
      if (!events) return true;
      if (events.some((e) => e.resource === resource && e.actions.includes(action))) return true;
    }
    return false;
  }

  private moveFromUnschedulable(q: QueuedPodInfo): void {
    this.unschedulable.delete(q.podInfo.key);
    if (this.isBackingOff(q)) this.backoff.push(q);
    else this.pushActive(q);
  }

  private pushActive(q: QueuedPodInfo): void {
    const wasEmpty = this.active.size === 0;
    q.timestamp = this.now();
    this.active.push(q);
    if (wasEmpty) this.onActive();
  }

  private backoffDuration(q: QueuedPodInfo): number {
    let d = this.initialBackoff;
    for (let i = 1; i < q.attempts; i++) {
      d *= 2;
      if (d >= this.maxBackoff) return this.maxBackoff;
    }
    return Math.min(d, this.maxBackoff);
  }

  private backoffExpiry(q: QueuedPodInfo): number {
    return q.timestamp + this.backoffDuration(q);
  }

  private isBackingOff(q: QueuedPodInfo): boolean {
    return this.backoffExpiry(q) > this.now();
  }
}
