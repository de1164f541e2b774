/**
 * `ControllerActivity`: what one controller is doing now, for people (the live view at
 * /debug/machines/ui, the `live` field of /debug/machines) and tests: the queue's depth and the
 * keys waiting, the keys being reconciled and for how long, the last reconciles with their outcome,
 * duration and retry count, and each informer feeding the queue with its sync state and last event.
 *
 * The controller machine keeps one in its context; its workers (each through its own recorder) and
 * feed report to it. Recording is a few field writes per reconcile and per informer event, with no
 * allocation once the ring is full (times and errors are formatted when the facts are read);
 * everything is bounded (`recentLimit` reconciles, `waitingLimit` keys), so a busy controller costs
 * the same memory as an idle one.
 */
import { systemClock, type Clock } from './clock.js';
import type { ChartModel } from './inspection/chart-model.js';
import { lifecycleChartModel } from './inspection/lifecycle-chart.js';
import { LIVE_CHART, LIVE_FACTS, type LiveFactsSource, type LiveFactsValue } from './inspection/live-facts.js';
import type { LifecycleFacts, LifecycleTracker } from './lifecycle-tracker.js';
import type { ReconcileResult } from './outcome.js';
import type { WorkQueue } from './work-queue.js';

/** How a source relates to the controller: the watched kind, an owned kind, or a trigger. */
export type SourceRole = 'watches' | 'owns' | 'triggers' | 'source';

export interface SourceFacts {
  /** `configmaps`, `apps/replicasets`, ... */
  resource: string;
  role: SourceRole;
  synced: boolean;
  /** Informer events received (adds, updates, deletes). */
  events: number;
  /** ISO time of the last event; null before the first. */
  lastEventAt: string | null;
}

export interface ReconcileRecord {
  key: string;
  outcome: ReconcileResult['kind'];
  durationMs: number;
  /** Failed attempts of this key before this one (0 on a first try). */
  retries: number;
  /** ISO time the reconcile ended. */
  at: string;
  /** The error's message for `failed` and `terminal`. */
  error?: string;
}

export interface ControllerActivityFacts {
  controller: string;
  /** Id of the controller's own chart (served at /debug/machines/charts/<id>.svg), when it has one. */
  chart?: string;
  queue: {
    /** Keys ready to be handed out. */
    depth: number;
    /** Keys being reconciled. */
    inFlight: number;
    /** Keys waiting for a back-off or `requeueAfter` delay (`backingOff` + `scheduled`). */
    delayed: number;
    /** Delayed keys backing off after a failure or `requeue`. */
    backingOff: number;
    /** Delayed keys waiting for a planned `requeueAfter` (not a failure). */
    scheduled: number;
    shuttingDown: boolean;
    /** The first ready keys, in the order they will be handed out. */
    waiting: string[];
    /** Keys being reconciled and for how long so far. */
    working: Array<{ key: string; forMs: number }>;
  };
  /** Reconciles finished since start, by outcome. */
  outcomes: Record<ReconcileResult['kind'], number>;
  /** The last reconciles, newest first. */
  recent: ReconcileRecord[];
  informers: SourceFacts[];
  /** Where the objects it works on stand in their lifecycle, for a controller that has one (./lifecycle.ts). */
  lifecycle?: LifecycleFacts;
}

export interface ControllerActivityOptions {
  name: string;
  queue: WorkQueue;
  clock?: Pick<Clock, 'now'>;
  /** Reconciles kept in `recent`; default 20. */
  recentLimit?: number;
  /** Ready keys listed in `queue.waiting`; default 10. */
  waitingLimit?: number;
  /** The controller's own chart (a defineController definition's), drawn on the live page. */
  chart?: ChartModel;
  /** Where its objects stand in their lifecycle (the controller's reconcile feeds it); its chart is served as `lifecycle/<controller>`. */
  lifecycle?: LifecycleTracker;
}

/** What one worker reports through: the reconcile half of an activity, not itself a live-facts source. */
export interface ReconcileRecorder {
  /** This worker took `key`. */
  started(key: string): void;
  /** The key this worker took ended with `result` after `retries` earlier failures. */
  finished(result: ReconcileResult, retries: number): void;
}

/** One worker's key in hand (undefined when idle) and since when. */
interface WorkerSlot {
  key: string | undefined;
  since: number;
}

/** One reconcile in the ring, kept raw (formatted only when someone reads the facts). */
interface RingEntry {
  key: string;
  outcome: ReconcileResult['kind'];
  durationMs: number;
  retries: number;
  at: number;
  error: unknown;
}

interface SourceRecord {
  resource: string;
  role: SourceRole;
  hasSynced: () => boolean;
  events: number;
  lastEventAt: number | undefined;
}

function messageOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

export class ControllerActivity implements LiveFactsSource {
  readonly name: string;
  /** The controller's own chart, if it has one (its id is `controller/<name>`). */
  readonly chart: ChartModel | undefined;
  /** Per object, where it stands in the controller's lifecycle (when the controller has one). */
  readonly lifecycle: LifecycleTracker | undefined;
  /** The lifecycle's chart, drawn once on first demand. */
  private lifecycleChart: ChartModel | undefined;
  private readonly queue: WorkQueue;
  private readonly clock: Pick<Clock, 'now'>;
  private readonly recentLimit: number;
  private readonly waitingLimit: number;
  private readonly sources: SourceRecord[] = [];
  /** Per worker: the key in hand. Written per reconcile, so no allocation there. */
  private readonly slots: WorkerSlot[] = [];
  /** A ring of the last reconciles (entries reused once full); `next` is where the next one goes. */
  private readonly ring: RingEntry[] = [];
  private next = 0;
  private readonly counts: Record<ReconcileResult['kind'], number> = { done: 0, requeue: 0, requeueAfter: 0, failed: 0, terminal: 0 };

  constructor(opts: ControllerActivityOptions) {
    this.name = opts.name;
    this.chart = opts.chart && { ...opts.chart, machineId: `controller/${opts.name}` };
    this.queue = opts.queue;
    this.clock = opts.clock ?? systemClock;
    this.recentLimit = Math.max(1, opts.recentLimit ?? 20);
    this.waitingLimit = Math.max(0, opts.waitingLimit ?? 10);
    this.lifecycle = opts.lifecycle;
  }

  /** Registers a source feeding the queue; returns its index for `sourceEvent`. */
  addSource(resource: string, role: SourceRole, hasSynced: () => boolean): number {
    this.sources.push({ resource, role, hasSynced, events: 0, lastEventAt: undefined });
    return this.sources.length - 1;
  }

  /** The recorder of one more worker (a worker's context holding it does not report the controller's facts). */
  recorder(): ReconcileRecorder {
    const slot: WorkerSlot = { key: undefined, since: 0 };
    this.slots.push(slot);
    return {
      started: (key) => {
        slot.key = key;
        slot.since = this.clock.now();
      },
      finished: (result, retries) => {
        if (slot.key === undefined) return;
        this.record(slot.key, slot.since, result, retries);
        slot.key = undefined;
      },
    };
  }

  /** Source `index` delivered an object event. */
  sourceEvent(index: number): void {
    const s = this.sources[index];
    if (!s) return;
    s.events++;
    s.lastEventAt = this.clock.now();
  }

  /** Counts a finished reconcile and keeps it in the ring, reusing the oldest entry once full. */
  private record(key: string, startedAt: number, result: ReconcileResult, retries: number): void {
    const now = this.clock.now();
    this.counts[result.kind]++;
    const error = result.kind === 'failed' || result.kind === 'terminal' ? result.error : undefined;
    let e = this.ring[this.next];
    if (e) {
      e.key = key;
      e.outcome = result.kind;
      e.durationMs = now - startedAt;
      e.retries = retries;
      e.at = now;
      e.error = error;
    } else {
      e = { key, outcome: result.kind, durationMs: now - startedAt, retries, at: now, error };
      this.ring.push(e);
    }
    this.next = (this.next + 1) % this.recentLimit;
  }

  /** The last reconciles, newest first. */
  recent(): ReconcileRecord[] {
    const out: ReconcileRecord[] = [];
    for (let i = 1; i <= this.ring.length; i++) {
      const e = this.ring[(this.next - i + this.recentLimit) % this.recentLimit]!;
      const r: ReconcileRecord = { key: e.key, outcome: e.outcome, durationMs: e.durationMs, retries: e.retries, at: new Date(e.at).toISOString() };
      if (e.outcome === 'failed' || e.outcome === 'terminal') r.error = messageOf(e.error);
      out.push(r);
    }
    return out;
  }

  facts(): ControllerActivityFacts {
    const now = this.clock.now();
    return {
      controller: this.name,
      ...(this.chart ? { chart: this.chart.machineId } : {}),
      queue: {
        depth: this.queue.length,
        inFlight: this.queue.inFlight,
        delayed: this.queue.delayed,
        backingOff: this.queue.backingOff,
        scheduled: this.queue.delayed - this.queue.backingOff,
        shuttingDown: this.queue.shuttingDown,
        waiting: this.queue.readyKeys(this.waitingLimit),
        working: this.slots.filter((w) => w.key !== undefined).map((w) => ({ key: w.key!, forMs: now - w.since })),
      },
      outcomes: { ...this.counts },
      recent: this.recent(),
      informers: this.sources.map((s) => ({
        resource: s.resource,
        role: s.role,
        synced: s.hasSynced(),
        events: s.events,
        lastEventAt: s.lastEventAt === undefined ? null : new Date(s.lastEventAt).toISOString(),
      })),
      ...(this.lifecycle ? { lifecycle: this.lifecycle.facts() } : {}),
    };
  }

  [LIVE_FACTS](): { [key: string]: LiveFactsValue } {
    return this.facts() as unknown as { [key: string]: LiveFactsValue };
  }

  [LIVE_CHART](): readonly ChartModel[] {
    const charts = this.chart ? [this.chart] : [];
    if (this.lifecycle) {
      this.lifecycleChart ??= lifecycleChartModel(this.lifecycle.definition);
      charts.push(this.lifecycleChart);
    }
    return charts;
  }
}
