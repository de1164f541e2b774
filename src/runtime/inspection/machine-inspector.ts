/**
 * `MachineInspector`: what every running actor is doing, for /debug/machines. Pass
 * `inspector.inspect` as xstate's `inspect` option (`createActor(machine, { inspect })`, or
 * `inspect` on a ControllerHost / startLeaderElection) and it keeps, per actor: its place in the
 * actor tree, its machine, its current state value, a small context summary and its last
 * transitions, and the live facts its context reports (live-facts.ts). A root actor that ends is
 * marked so and forgotten `stoppedRetentionMs` later; a child that ends (a finished lease renewal,
 * a stopped worker) is forgotten at once, so the tree shows what is running.
 *
 * Cheap on the hot path: an inspection event only stores references and, when the state value
 * changed, one transition record; summaries are made when someone asks (snapshot(), listeners).
 */
import type { AnyActor, AnyStateMachine, InspectionEvent } from 'xstate';
import { systemClock, type Clock } from '../clock.js';
import { isStateMachine, type ChartModel } from './chart-model.js';
import { summarizeContext, type ContextSummary } from './context-summary.js';
import { liveChartsOf, liveFactsOf, liveSourceOf, type LiveFactsSource, type LiveFactsValue } from './live-facts.js';
import { activePaths, describeStateValue, isStateValue, type StateValueLike } from './state-value.js';

/** `active`, or how the actor ended. */
export type ActorStatus = 'active' | 'done' | 'error' | 'stopped';

export interface InspectedTransition {
  /** The event's type (`xstate.init` for the first state). */
  event: string;
  /** The state before (leaf paths joined by `, `); null for the initial state. */
  from: string | null;
  to: string;
  /** ISO time. */
  at: string;
}

export interface InspectedActor {
  /** Unique per actor system run (`x:12`). */
  sessionId: string;
  /** The invoke/spawn id (a root actor's is its sessionId). */
  id: string;
  systemId?: string;
  parentSessionId?: string;
  /** Session ids of its children that are still known. */
  children: string[];
  /** `machine` for state machines (with machineId, value and transitions), `actor` for other logic. */
  kind: 'machine' | 'actor';
  machineId?: string;
  status: ActorStatus;
  /** The xstate state value (machines only). */
  value?: StateValueLike;
  /** The value as one line, e.g. `leader.holding`. */
  state?: string;
  /** Every active state's path, ancestors included; the chart highlights these. */
  activePaths: string[];
  context: ContextSummary;
  /** Facts reported by the context (e.g. a controller's queue, keys in hand and recent reconciles). */
  live?: { [key: string]: LiveFactsValue };
  /** The last transitions, oldest first. */
  transitions: InspectedTransition[];
  startedAt: string;
  endedAt?: string;
}

/** The JSON `/debug/machines` serves. */
export interface MachinesSnapshot {
  generatedAt: string;
  /** Every known actor, roots first, each followed by its descendants. */
  actors: InspectedActor[];
  /** Ids of the machines seen, whose charts can be drawn. */
  machines: string[];
}

/** What listeners (the live page's event stream) are told. */
export type InspectorUpdate = { type: 'actor'; actor: InspectedActor } | { type: 'removed'; sessionId: string };

export interface MachineInspectorOptions {
  /** Transitions kept per actor; default 20. */
  maxTransitions?: number;
  /** How long an ended root actor stays visible; default 60 s (ended children go at once). */
  stoppedRetentionMs?: number;
  /** Ended actors kept at most (the oldest go first); default 200. */
  maxStopped?: number;
  /** Default systemClock. */
  clock?: Pick<Clock, 'now'>;
}

interface ActorRecord {
  ref: AnyActor;
  sessionId: string;
  parentSessionId: string | undefined;
  machine: AnyStateMachine | undefined;
  status: ActorStatus;
  value: StateValueLike | undefined;
  valueLine: string | undefined;
  context: unknown;
  transitions: InspectedTransition[];
  startedAt: number;
  endedAt: number | undefined;
  /** Session ids of known children, in start order. */
  children: Set<string>;
}

function statusOf(snapshot: unknown): ActorStatus {
  const s = (snapshot as { status?: unknown } | undefined)?.status;
  return s === 'done' || s === 'error' || s === 'stopped' ? s : 'active';
}

export class MachineInspector {
  private readonly actors = new Map<string, ActorRecord>();
  /** Session ids of ended actors, in the order they ended (so pruning looks at the front only). */
  private readonly ended = new Set<string>();
  private readonly machines = new Map<string, AnyStateMachine>();
  private readonly listeners = new Set<(u: InspectorUpdate) => void>();
  private readonly maxTransitions: number;
  private readonly retentionMs: number;
  private readonly maxStopped: number;
  private readonly clock: Pick<Clock, 'now'>;

  constructor(opts: MachineInspectorOptions = {}) {
    this.maxTransitions = Math.max(1, opts.maxTransitions ?? 20);
    this.retentionMs = Math.max(0, opts.stoppedRetentionMs ?? 60_000);
    this.maxStopped = Math.max(0, opts.maxStopped ?? 200);
    this.clock = opts.clock ?? systemClock;
  }

  /** The xstate inspection callback: `createActor(machine, { inspect: inspector.inspect })`. */
  readonly inspect = (ev: InspectionEvent): void => {
    if (ev.type === '@xstate.actor') this.onActor(ev.actorRef as AnyActor);
    else if (ev.type === '@xstate.snapshot') this.onSnapshot(ev.actorRef as AnyActor, ev.event.type, ev.snapshot);
  };

  /** The machine definition seen under `machineId` (for its chart). */
  machine(machineId: string): AnyStateMachine | undefined {
    return this.machines.get(machineId);
  }

  /** Called with every change; returns the unsubscribe function. */
  subscribe(listener: (u: InspectorUpdate) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The actor tree now (ended actors past their retention are dropped first). */
  snapshot(): MachinesSnapshot {
    this.refreshStatuses();
    this.prune();
    const out: InspectedActor[] = [];
    const visit = (rec: ActorRecord) => {
      out.push(this.describe(rec));
      for (const child of this.childrenOf(rec)) visit(child);
    };
    for (const rec of this.actors.values()) if (rec.parentSessionId === undefined || !this.actors.has(rec.parentSessionId)) visit(rec);
    return { generatedAt: new Date(this.clock.now()).toISOString(), actors: out, machines: [...this.machines.keys()] };
  }

  /** A chart an actor's context offers (a controller's own, `controller/<name>`; its objects' lifecycle, `lifecycle/<name>`). */
  liveChart(id: string): ChartModel | undefined {
    for (const rec of this.actors.values()) {
      const chart = liveChartsOf(rec.context).find((c) => c.machineId === id);
      if (chart) return chart;
    }
    return undefined;
  }

  /** The objects reporting live facts in the contexts of the actors still active (e.g. controllers' activities), newest actor first. */
  liveSources(): LiveFactsSource[] {
    const out: LiveFactsSource[] = [];
    for (const rec of this.actors.values()) {
      if (rec.status !== 'active') continue;
      const source = liveSourceOf(rec.context);
      if (source) out.push(source);
    }
    return out.reverse();
  }

  /** The live facts of every known actor that reports some (what the live page refreshes). */
  liveFacts(): Array<{ sessionId: string; live: { [key: string]: LiveFactsValue } }> {
    const out: Array<{ sessionId: string; live: { [key: string]: LiveFactsValue } }> = [];
    for (const rec of this.actors.values()) {
      const live = liveFactsOf(rec.context);
      if (live) out.push({ sessionId: rec.sessionId, live });
    }
    return out;
  }

  private onActor(ref: AnyActor): void {
    const machine = isStateMachine(ref.logic) ? ref.logic : undefined;
    if (machine && !this.machines.has(machine.id)) this.machines.set(machine.id, machine);
    const rec: ActorRecord = {
      ref,
      sessionId: ref.sessionId,
      parentSessionId: ref._parent?.sessionId,
      machine,
      status: 'active',
      value: undefined,
      valueLine: undefined,
      context: undefined,
      transitions: [],
      startedAt: this.clock.now(),
      endedAt: undefined,
      children: new Set(),
    };
    this.actors.set(rec.sessionId, rec);
    if (rec.parentSessionId !== undefined) this.actors.get(rec.parentSessionId)?.children.add(rec.sessionId);
    this.prune();
  }

  private onSnapshot(ref: AnyActor, eventType: string, snapshot: unknown): void {
    const rec = this.actors.get(ref.sessionId);
    if (!rec) return;
    const status = statusOf(snapshot);
    const s = snapshot as { value?: unknown; context?: unknown };
    rec.context = s.context;
    if (rec.machine && isStateValue(s.value)) {
      const line = describeStateValue(s.value);
      if (line !== rec.valueLine) {
        rec.transitions.push({ event: eventType, from: rec.valueLine ?? null, to: line, at: new Date(this.clock.now()).toISOString() });
        if (rec.transitions.length > this.maxTransitions) rec.transitions.splice(0, rec.transitions.length - this.maxTransitions);
        rec.value = s.value;
        rec.valueLine = line;
      }
    }
    this.setStatus(rec, status);
    if (this.actors.has(rec.sessionId)) this.notify(rec);
  }

  private setStatus(rec: ActorRecord, status: ActorStatus): void {
    const ending = status !== 'active' && rec.status === 'active';
    rec.status = status;
    if (!ending) return;
    rec.endedAt = this.clock.now();
    if (rec.parentSessionId !== undefined && this.actors.has(rec.parentSessionId)) this.remove(rec);
    else this.ended.add(rec.sessionId);
  }

  private remove(rec: ActorRecord): void {
    this.actors.delete(rec.sessionId);
    if (rec.parentSessionId !== undefined) this.actors.get(rec.parentSessionId)?.children.delete(rec.sessionId);
    for (const l of this.listeners) l({ type: 'removed', sessionId: rec.sessionId });
  }

  /** Errors end an actor without an inspection event; its snapshot still says so. */
  private refreshStatuses(): void {
    for (const rec of this.actors.values()) {
      if (rec.status !== 'active') continue;
      const status = statusOf(rec.ref.getSnapshot());
      if (status !== 'active') this.setStatus(rec, status);
    }
  }

  private prune(): void {
    const now = this.clock.now();
    for (const sessionId of this.ended) {
      const rec = this.actors.get(sessionId);
      if (rec && this.ended.size <= this.maxStopped && now - rec.endedAt! < this.retentionMs) break;
      this.ended.delete(sessionId);
      if (rec) this.remove(rec);
    }
  }

  private childrenOf(rec: ActorRecord): ActorRecord[] {
    const out: ActorRecord[] = [];
    for (const id of rec.children) {
      const child = this.actors.get(id);
      if (child) out.push(child);
    }
    return out;
  }

  private notify(rec: ActorRecord): void {
    if (this.listeners.size === 0) return;
    const update: InspectorUpdate = { type: 'actor', actor: this.describe(rec) };
    for (const l of this.listeners) l(update);
  }

  private describe(rec: ActorRecord): InspectedActor {
    const systemId = rec.ref.systemId;
    const live = liveFactsOf(rec.context);
    return {
      sessionId: rec.sessionId,
      id: rec.ref.id,
      ...(systemId ? { systemId } : {}),
      ...(rec.parentSessionId !== undefined ? { parentSessionId: rec.parentSessionId } : {}),
      children: [...rec.children],
      kind: rec.machine ? 'machine' : 'actor',
      ...(rec.machine ? { machineId: rec.machine.id } : {}),
      status: rec.status,
      ...(rec.value !== undefined ? { value: rec.value, state: rec.valueLine! } : {}),
      activePaths: rec.value !== undefined ? activePaths(rec.value) : [],
      context: summarizeContext(rec.context),
      ...(live ? { live } : {}),
      transitions: [...rec.transitions],
      startedAt: new Date(rec.startedAt).toISOString(),
      ...(rec.endedAt !== undefined ? { endedAt: new Date(rec.endedAt).toISOString() } : {}),
    };
  }
}
