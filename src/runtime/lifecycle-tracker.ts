/**
 * `LifecycleTracker`: where each object a controller works on stands in its lifecycle
 * (./lifecycle.ts), for people: the state, since when, what holds it there, its last transitions;
 * how many objects are in each state; and every state entered since start (what the coverage tests
 * compare with the chart).
 *
 * Bounded: at most `limit` objects are remembered (the least recently observed go first) and
 * `transitionsKept` transitions each, so a controller of 150,000 objects costs a fixed amount.
 * A deleted object is forgotten when its reconcile says so (`forget`).
 */
import { systemClock, type Clock } from './clock.js';
import { evaluateLifecycle, restingStates, type LifecycleDefinition, type LifecycleState } from './lifecycle.js';

export interface LifecycleTransition {
  from: string;
  to: string;
  /** ISO time. */
  at: string;
}

/** One object's place in its lifecycle (served as JSON). */
export interface LifecycleObjectFacts {
  /** `namespace/name` (or `name` for a cluster-scoped object). */
  key: string;
  state: string;
  /** ISO time it entered the state. */
  since: string;
  forMs: number;
  holds?: string;
  /** Newest last. */
  transitions: LifecycleTransition[];
}

export interface LifecycleFacts {
  /** The chart's id (`lifecycle/<controller>`), served at /debug/machines/charts/<id>.svg. */
  chart: string;
  kind: string;
  /** The states where objects rest (nothing to do): the page counts the others as on their way. */
  resting: string[];
  /** Objects now in each state. */
  counts: Record<string, number>;
  /** Times each state was entered since start (an object staying in a state counts once). */
  entered: Record<string, number>;
  /** Objects not in a resting state first (longest there first), then the most recently observed; at most `objectsShown`. */
  objects: LifecycleObjectFacts[];
}

interface Entry {
  state: string;
  since: number;
  holds: string | undefined;
  /** Raw: [from, to, at] triples, oldest first. */
  transitions: Array<[string, string, number]>;
}

export interface LifecycleTrackerOptions {
  clock?: Pick<Clock, 'now'>;
  /** Objects remembered; default 20,000. */
  limit?: number;
  transitionsKept?: number;
  /** Objects listed in `facts().objects`; default 50. */
  objectsShown?: number;
  /** States where objects rest (listed after the others): default the machine's states tagged `resting`. */
  resting?: readonly string[];
}

export class LifecycleTracker<F = unknown> {
  readonly definition: LifecycleDefinition<F>;
  private readonly clock: Pick<Clock, 'now'>;
  private readonly limit: number;
  private readonly transitionsKept: number;
  private readonly objectsShown: number;
  private readonly resting: ReadonlySet<string>;
  /** Insertion order is observation order: the first entry is the least recently observed. */
  private readonly entries = new Map<string, Entry>();
  private readonly enteredCounts = new Map<string, number>();

  constructor(definition: LifecycleDefinition<F>, opts: LifecycleTrackerOptions = {}) {
    this.definition = definition;
    this.clock = opts.clock ?? systemClock;
    this.limit = Math.max(1, opts.limit ?? 20_000);
    this.transitionsKept = Math.max(0, opts.transitionsKept ?? 5);
    this.objectsShown = Math.max(0, opts.objectsShown ?? 50);
    this.resting = new Set(opts.resting ?? restingStates(definition));
  }

  /** Evaluates the lifecycle on `facts` for `key`, remembers where it landed and returns it. */
  observe(key: string, facts: F): LifecycleState {
    const result = evaluateLifecycle(this.definition, facts);
    const now = this.clock.now();
    const prev = this.entries.get(key);
    if (prev) this.entries.delete(key); // re-inserted below: most recently observed last
    let entry: Entry;
    if (prev && prev.state === result.state) {
      entry = prev;
      entry.holds = result.holds;
    } else {
      entry = { state: result.state, since: now, holds: result.holds, transitions: prev?.transitions ?? [] };
      if (prev && this.transitionsKept > 0) {
        entry.transitions.push([prev.state, result.state, now]);
        if (entry.transitions.length > this.transitionsKept) entry.transitions.shift();
      }
      this.enteredCounts.set(result.state, (this.enteredCounts.get(result.state) ?? 0) + 1);
    }
    this.entries.set(key, entry);
    if (this.entries.size > this.limit) this.entries.delete(this.entries.keys().next().value!);
    return result;
  }

  /** The object is gone: nothing more to show of it. */
  forget(key: string): void {
    this.entries.delete(key);
  }

  /** One object's facts; undefined when it is not (or no longer) followed. */
  object(key: string): LifecycleObjectFacts | undefined {
    const e = this.entries.get(key);
    return e ? this.describe(key, e, this.clock.now()) : undefined;
  }

  /** States entered since start, with how often (coverage tests read this). */
  entered(): Map<string, number> {
    return new Map(this.enteredCounts);
  }

  facts(): LifecycleFacts {
    const now = this.clock.now();
    const counts: Record<string, number> = {};
    const busy: Array<[string, Entry]> = [];
    for (const [key, e] of this.entries) {
      counts[e.state] = (counts[e.state] ?? 0) + 1;
      if (!this.resting.has(e.state)) busy.push([key, e]);
    }
    busy.sort((a, b) => a[1].since - b[1].since);
    const shown = busy.slice(0, this.objectsShown);
    if (shown.length < this.objectsShown) {
      const recent = [...this.entries].reverse();
      for (const pair of recent) {
        if (shown.length >= this.objectsShown) break;
        if (this.resting.has(pair[1].state)) shown.push(pair);
      }
    }
    return {
      chart: `lifecycle/${this.definition.controller}`,
      kind: this.definition.kind,
      resting: [...this.resting],
      counts,
      entered: Object.fromEntries(this.enteredCounts),
      objects: shown.map(([key, e]) => this.describe(key, e, now)),
    };
  }

  private describe(key: string, e: Entry, now: number): LifecycleObjectFacts {
    return {
      key,
      state: e.state,
      since: new Date(e.since).toISOString(),
      forMs: now - e.since,
      ...(e.holds ? { holds: e.holds } : {}),
      transitions: e.transitions.map(([from, to, at]) => ({ from, to, at: new Date(at).toISOString() })),
    };
  }
}
