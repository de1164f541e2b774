/**
 * The chart model: an xstate v5 machine's structure as plain data (states with their kind,
 * initial child, entry/exit actions, invoked and spawned actors; transitions with what triggers
 * them, their guard and actions). Mermaid, DOT, SVG and JSON are all drawn from this one model.
 *
 * State paths are the keys from the root joined by `.` (`leader.renewing.attempt`; the root is
 * `''`), the same paths /debug/machines reports as active, so a page can highlight them.
 */
import type { AnyStateMachine, AnyStateNode } from 'xstate';

export type ChartStateKind = 'atomic' | 'compound' | 'parallel' | 'final' | 'history';

/** An actor a state invokes (lives while the state is active) or spawns (on entry). */
export interface ChartActorRef {
  /** The invoke/spawn id, when one was given. */
  id?: string;
  /** The actor logic's name (`src`). */
  src: string;
  systemId?: string;
}

export interface ChartState {
  /** Keys from the root joined by `.`; `''` for the root. */
  path: string;
  key: string;
  kind: ChartStateKind;
  /** Path of the initial child (compound states). */
  initial?: string;
  entry: string[];
  exit: string[];
  invokes: ChartActorRef[];
  spawns: ChartActorRef[];
  tags: string[];
  description?: string;
  children: ChartState[];
}

/** What fires a transition. */
export type ChartTrigger =
  | { kind: 'event'; event: string }
  /** A delayed transition: the delay's name (from `setup({ delays })`) or its milliseconds. */
  | { kind: 'after'; delay: string; ms?: number }
  /** An eventless (`always`) transition, taken as soon as its guard allows. */
  | { kind: 'always' }
  /** An invoked actor finished (`onDone`) or failed (`onError`). */
  | { kind: 'done'; actor: string }
  | { kind: 'error'; actor: string }
  /** The state's children reached a final state (`onDone` of a compound/parallel state). */
  | { kind: 'stateDone' };

export interface ChartTransition {
  /** Path of the state that defines the transition. */
  source: string;
  /** Paths of the targets; empty for a targetless transition (actions only, no state change). */
  targets: string[];
  trigger: ChartTrigger;
  guard?: string;
  actions: string[];
  /** True for a self-transition that exits and re-enters the state. */
  reenter: boolean;
  /** One line: trigger, `[guard]`, `/ actions`. */
  label: string;
}

export interface ChartModel {
  /** The name the chart is exported under (`leader-election`). */
  name: string;
  /** The machine's own id (`leaderElection`). */
  machineId: string;
  root: ChartState;
  /** In document order: by source state, then as written. */
  transitions: ChartTransition[];
  /** Actor logic the machine can invoke or spawn (`setup({ actors })`). */
  actors: string[];
  /**
   * How a drawing lays it out: top to bottom (default) or left to right, which suits a lifecycle's
   * decision table (one "observed" hub, a guarded edge to each state) better.
   */
  direction?: 'TB' | 'LR';
}

type Fn = ((...args: never[]) => unknown) & { type?: unknown; id?: unknown; src?: unknown; systemId?: unknown; event?: unknown; sendId?: unknown; guards?: unknown; stateValue?: unknown };

/** True for an xstate machine definition (what `createMachine` / `setup().createMachine` return). */
export function isStateMachine(v: unknown): v is AnyStateMachine {
  return typeof v === 'object' && v !== null && 'root' in v && 'config' in v && typeof (v as { id?: unknown }).id === 'string';
}

function pathOf(node: AnyStateNode): string {
  return node.path.join('.');
}

function srcName(src: unknown): string {
  if (typeof src === 'string') return src;
  if (src && typeof src === 'object' && 'id' in src && typeof (src as { id: unknown }).id === 'string') return (src as { id: string }).id;
  return 'actor';
}

/** An invoke's id unless xstate made it up (`0.machine.state`). */
function givenId(id: unknown): string | undefined {
  return typeof id === 'string' && !/^\d+\./.test(id) ? id : undefined;
}

function describeGuard(guard: unknown): string | undefined {
  if (guard === undefined || guard === null) return undefined;
  if (typeof guard === 'string') return guard;
  if (typeof guard === 'function') {
    const g = guard as Fn;
    const parts = Array.isArray(g.guards) ? (g.guards as unknown[]).map((x) => describeGuard(x) ?? 'guard') : [];
    if (g.name === 'not' && parts.length) return `!${parts[0]}`;
    if (g.name === 'and' && parts.length) return parts.join(' && ');
    if (g.name === 'or' && parts.length) return parts.join(' || ');
    if (g.name === 'stateIn' && g.stateValue !== undefined) return `in ${JSON.stringify(g.stateValue)}`;
    return g.name && g.name !== 'guard' ? g.name : 'inline guard';
  }
  if (typeof guard === 'object' && 'type' in guard && typeof (guard as { type: unknown }).type === 'string') return (guard as { type: string }).type;
  return 'guard';
}

/** Splits a state's actions into named actions and spawned actors; xstate's own timer bookkeeping is left out. */
function readActions(machine: AnyStateMachine, actions: readonly unknown[]): { names: string[]; spawns: ChartActorRef[] } {
  const names: string[] = [];
  const spawns: ChartActorRef[] = [];
  const impls = (machine.implementations.actions ?? {}) as Record<string, unknown>;
  const spawnOf = (a: Fn): ChartActorRef => ({
    ...(typeof a.id === 'string' ? { id: a.id } : {}),
    src: srcName(a.src),
    ...(typeof a.systemId === 'string' ? { systemId: a.systemId } : {}),
  });
  for (const a of actions) {
    if (typeof a === 'string') {
      names.push(a);
      const impl = impls[a] as Fn | undefined;
      if (typeof impl === 'function' && impl.type === 'xstate.spawnChild') spawns.push(spawnOf(impl));
      continue;
    }
    if (typeof a === 'function') {
      const f = a as Fn;
      const type = typeof f.type === 'string' ? f.type : undefined;
      if (type === 'xstate.spawnChild') spawns.push(spawnOf(f));
      else if (type === 'xstate.raise' && String((f.event as { type?: unknown } | undefined)?.type ?? '').startsWith('xstate.after.')) continue;
      else if (type === 'xstate.cancel' && String(f.sendId ?? '').startsWith('xstate.after.')) continue;
      else if (type === 'xstate.assign') continue;
      else if (type?.startsWith('xstate.')) names.push(type.slice('xstate.'.length));
      else if (type) names.push(type);
      else if (f.name && !/^(entry|exit|actions)$/.test(f.name)) names.push(f.name);
      continue;
    }
    if (a && typeof a === 'object' && 'type' in a && typeof (a as { type: unknown }).type === 'string') names.push((a as { type: string }).type);
  }
  return { names, spawns };
}

function chartState(machine: AnyStateMachine, node: AnyStateNode): ChartState {
  const entry = readActions(machine, node.entry);
  const exit = readActions(machine, node.exit);
  const initial = node.type === 'compound' ? node.initial.target.map(pathOf)[0] : undefined;
  return {
    path: pathOf(node),
    key: node.key,
    kind: node.type,
    ...(initial !== undefined ? { initial } : {}),
    entry: entry.names,
    exit: exit.names,
    invokes: node.invoke.map((inv) => {
      const id = givenId(inv.id);
      return { ...(id ? { id } : {}), src: srcName(inv.src), ...(inv.systemId ? { systemId: inv.systemId } : {}) };
    }),
    spawns: [...entry.spawns, ...exit.spawns],
    tags: [...node.tags],
    ...(node.description ? { description: node.description } : {}),
    children: Object.values(node.states as Record<string, AnyStateNode>).map((c) => chartState(machine, c)),
  };
}

function triggerLabel(t: ChartTrigger): string {
  switch (t.kind) {
    case 'event':
      return t.event;
    case 'after':
      return t.ms === undefined ? `after ${t.delay}` : /^\d+$/.test(t.delay) ? `after ${t.ms}ms` : `after ${t.delay} (${t.ms}ms)`;
    case 'always':
      return 'always';
    case 'done':
      return `done: ${t.actor}`;
    case 'error':
      return `error: ${t.actor}`;
    case 'stateDone':
      return 'done';
  }
}

function transitionsOf(machine: AnyStateMachine, node: AnyStateNode, invokeSrc: Map<string, string>): ChartTransition[] {
  const delays = (machine.implementations.delays ?? {}) as Record<string, unknown>;
  const afterDelay = new Map<string, string | number>(node.after.map((d) => [d.eventType, d.delay as string | number]));
  const out: ChartTransition[] = [];
  const add = (trigger: ChartTrigger, t: { target?: readonly AnyStateNode[] | undefined; guard?: unknown; actions: readonly unknown[]; reenter: boolean }) => {
    const guard = describeGuard(t.guard);
    const { names, spawns } = readActions(machine, t.actions);
    const actions = [...names, ...spawns.map((s) => `spawn ${s.src}`)];
    const label = `${triggerLabel(trigger)}${guard ? ` [${guard}]` : ''}${actions.length ? ` / ${actions.join(', ')}` : ''}`;
    out.push({ source: pathOf(node), targets: (t.target ?? []).map(pathOf), trigger, ...(guard ? { guard } : {}), actions, reenter: t.reenter, label });
  };
  for (const [eventType, defs] of node.transitions) {
    let trigger: ChartTrigger;
    const delay = afterDelay.get(eventType);
    if (delay !== undefined) {
      const impl = typeof delay === 'number' ? delay : delays[delay];
      trigger = { kind: 'after', delay: String(delay), ...(typeof impl === 'number' ? { ms: impl } : {}) };
    } else if (eventType.startsWith('xstate.done.actor.')) {
      const id = eventType.slice('xstate.done.actor.'.length);
      trigger = { kind: 'done', actor: invokeSrc.get(id) ?? id };
    } else if (eventType.startsWith('xstate.error.actor.')) {
      const id = eventType.slice('xstate.error.actor.'.length);
      trigger = { kind: 'error', actor: invokeSrc.get(id) ?? id };
    } else if (eventType.startsWith('xstate.done.state.')) {
      trigger = { kind: 'stateDone' };
    } else {
      trigger = { kind: 'event', event: eventType };
    }
    for (const d of defs) add(trigger, d);
  }
  for (const d of node.always ?? []) add({ kind: 'always' }, d);
  return out;
}

function allNodes(node: AnyStateNode): AnyStateNode[] {
  return [node, ...Object.values(node.states as Record<string, AnyStateNode>).flatMap(allNodes)];
}

/** The chart model of `machine`, exported as `name` (default: the machine's id). */
export function chartModel(machine: AnyStateMachine, name: string = machine.id): ChartModel {
  const nodes = allNodes(machine.root);
  const invokeSrc = new Map<string, string>();
  for (const n of nodes) for (const inv of n.invoke) invokeSrc.set(inv.id, givenId(inv.id) ?? srcName(inv.src));
  return {
    name,
    machineId: machine.id,
    root: chartState(machine, machine.root),
    transitions: nodes.flatMap((n) => transitionsOf(machine, n, invokeSrc)),
    actors: Object.keys((machine.implementations.actors ?? {}) as Record<string, unknown>),
  };
}

/** Every state of the model, depth first, the root first. */
export function chartStates(model: ChartModel): ChartState[] {
  const walk = (s: ChartState): ChartState[] => [s, ...s.children.flatMap(walk)];
  return walk(model.root);
}

/** The DOM id a rendered chart gives the element of the state at `path` (`state-leader.holding`). */
export function stateElementId(path: string): string {
  return `state-${path}`;
}
