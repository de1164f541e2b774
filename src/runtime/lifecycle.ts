/**
 * Lifecycles: the phases the objects a controller manages go through, as an xstate machine that
 * the controller's reconcile evaluates on what it observed — not an actor per object, but xstate's
 * pure `initialTransition`/`transition` over one event, `observed`, carrying the facts.
 *
 * A lifecycle machine is a decision table a person can read as a chart:
 *
 *   - its root has one `observed` transition list, in priority order: the first guard that holds
 *     on the facts names the state (`paused`, `progressing.surging`, `complete` ...). Controllers
 *     are level-triggered, so the state follows from what is observed now, never from the state
 *     before; the state before only says how long an object has been there.
 *   - a state's `meta.holds(facts)` says in one line what keeps the object there ("2 of 5 new pods
 *     available, maxUnavailable 1"); `description` says what the controller does there.
 *
 * The reconcile then acts on the state it got (a `switch`), so the chart is the logic's picture,
 * not a second copy of it (design: machines/ holds the machines, the runtime evaluates them):
 *
 *   const { state } = ctx.lifecycle.observe(deploymentLifecycle, facts);
 *   switch (state) { case 'progressing.surging': ...scale the new ReplicaSet up... }
 *
 * Evaluating reads the machine's own `observed` list — its guards (the machine's implementations)
 * and targets — compiled once per machine into a table, which costs well under a microsecond per
 * reconcile; a machine the table cannot express (an inline or combined guard) is evaluated with
 * xstate's `transition` instead, and the unit tests check both give the same state for the same
 * facts. ./lifecycle-tracker.ts keeps, per
 * object, the state, since when, what holds it and its last transitions for /debug/machines,
 * `/debug/controllers/<name>/objects/...` and `svc explain`.
 */
import { initialTransition, transition, type AnyStateMachine, type AnyMachineSnapshot, type StateValue } from 'xstate';

/** The one event a lifecycle machine takes. */
export interface ObservedEvent<F> {
  type: 'observed';
  facts: F;
}

/** What a state's `meta` may hold: `holds(facts)` says what keeps an object in the state. */
export interface LifecycleStateMeta<F> {
  holds?: (facts: F) => string;
}

/**
 * A lifecycle: the machine and, for people, the kind of object it follows. `F` is the facts the
 * reconcile observes (plain numbers and flags, computed by the controller's pure rules).
 */
export interface LifecycleDefinition<F = unknown> {
  /** The controller whose objects go through it (`deployment`); the chart is `lifecycle/<controller>`. */
  readonly controller: string;
  /** The kind followed (`Deployment`), for `svc explain` and the page. */
  readonly kind: string;
  readonly machine: AnyStateMachine;
  /** Type witness only (never set): carries F so `observe(def, facts)` checks the facts' shape. */
  readonly _facts?: F;
}

/** Where one evaluation landed. */
export interface LifecycleState {
  /** The active atomic state's path from the root, joined by `.` (`progressing.surging`), as charts name states. */
  state: string;
  /** What keeps the object there, when the state says. */
  holds?: string;
}

export function defineLifecycle<F>(controller: string, kind: string, machine: AnyStateMachine): LifecycleDefinition<F> {
  if (!machine.root.on['observed']) throw new Error(`lifecycle ${controller}: the machine has no "observed" transitions on its root`);
  return { controller, kind, machine };
}

/** The leaf path of a state value (`{ progressing: 'surging' }` → `progressing.surging`). */
export function leafPath(value: StateValue): string {
  if (typeof value === 'string') return value;
  const entries = Object.entries(value);
  if (entries.length !== 1) throw new Error(`a lifecycle state is one atomic state, not ${JSON.stringify(value)}`);
  const [key, child] = entries[0]!;
  if (child === undefined) return key;
  const rest = leafPath(child as StateValue);
  return rest ? `${key}.${rest}` : key;
}

/** One row of a compiled `observed` list: the guard (undefined: always) and the target leaf's path and meta. */
interface CompiledRow<F> {
  guard: ((facts: F) => boolean) | undefined;
  state: string;
  meta: LifecycleStateMeta<F> | undefined;
}

type GuardImpl = (args: { context: unknown; event: unknown }, params: unknown) => boolean;

const compiled = new WeakMap<AnyStateMachine, ReadonlyArray<CompiledRow<unknown>> | null>();

/**
 * The machine's root `observed` list as a table, when every guard is a named one of the machine's
 * implementations (or none) and every target an atomic state; null otherwise.
 */
function compile<F>(machine: AnyStateMachine): ReadonlyArray<CompiledRow<F>> | null {
  if (compiled.has(machine)) return compiled.get(machine) as ReadonlyArray<CompiledRow<F>> | null;
  const guards = (machine.implementations.guards ?? {}) as Record<string, unknown>;
  const rows: CompiledRow<F>[] = [];
  let ok = true;
  for (const t of machine.root.on['observed'] ?? []) {
    const targets = t.target ?? [];
    const target = targets[0];
    if (targets.length !== 1 || !target || Object.keys(target.states).length > 0) ok = false;
    const named = typeof t.guard === 'string' ? t.guard : typeof t.guard === 'object' && t.guard !== null && 'type' in t.guard && !('params' in t.guard) ? String((t.guard as { type: unknown }).type) : undefined;
    const impl = named !== undefined ? guards[named] : undefined;
    if (t.guard !== undefined && typeof impl !== 'function') ok = false;
    if (!ok || !target) break;
    const fn = impl as GuardImpl | undefined;
    rows.push({
      guard: fn ? (facts: F) => fn({ context: undefined, event: { type: 'observed', facts } }, undefined) : undefined,
      state: target.path.join('.'),
      meta: target.meta as LifecycleStateMeta<F> | undefined,
    });
  }
  const table = ok && rows.length > 0 ? rows : null;
  compiled.set(machine, table as ReadonlyArray<CompiledRow<unknown>> | null);
  return table;
}

/** Per machine: its initial snapshot, made once (lifecycle machines have no context to vary). */
const initialSnapshots = new WeakMap<AnyStateMachine, AnyMachineSnapshot>();

function initialOf(machine: AnyStateMachine): AnyMachineSnapshot {
  let s = initialSnapshots.get(machine);
  if (!s) {
    s = initialTransition(machine)[0] as AnyMachineSnapshot;
    initialSnapshots.set(machine, s);
  }
  return s;
}

/**
 * Evaluates the lifecycle on `facts`: the state the first holding guard names, and what holds the
 * object there. Level-triggered: the result does not depend on an earlier state. A machine whose
 * `observed` list has no transition for the facts stays in its initial state, which is a bug in
 * the machine (its last entry should hold unguarded), so it throws.
 */
export function evaluateLifecycle<F>(def: LifecycleDefinition<F>, facts: F): LifecycleState {
  const table = compile<F>(def.machine);
  if (table) {
    for (const row of table) {
      if (row.guard && !row.guard(facts)) continue;
      const holds = row.meta?.holds?.(facts);
      return holds ? { state: row.state, holds } : { state: row.state };
    }
    throw new Error(`lifecycle ${def.controller}: no "observed" transition holds for the facts; the last one should be unguarded`);
  }
  return evaluateWithXstate(def, facts);
}

/** The same evaluation through xstate's pure `transition` (machines the table cannot express; tests compare the two). */
export function evaluateWithXstate<F>(def: LifecycleDefinition<F>, facts: F): LifecycleState {
  const start = initialOf(def.machine);
  const [next] = transition(def.machine, start, { type: 'observed', facts } as ObservedEvent<F>);
  const snapshot = next as AnyMachineSnapshot;
  if (snapshot === start) throw new Error(`lifecycle ${def.controller}: no "observed" transition holds for the facts; the last one should be unguarded`);
  const state = leafPath(snapshot.value as StateValue);
  const meta = stateMeta<F>(def.machine, state);
  const holds = meta?.holds?.(facts);
  return holds ? { state, holds } : { state };
}

/** A state node's meta by its path (`progressing.surging`). */
function stateMeta<F>(machine: AnyStateMachine, path: string): LifecycleStateMeta<F> | undefined {
  let node = machine.root;
  for (const key of path.split('.')) {
    const child = node.states[key];
    if (!child) return undefined;
    node = child;
  }
  return node.meta as LifecycleStateMeta<F> | undefined;
}

/** The machine's atomic state nodes with their paths (`progressing.surging`), in document order. */
function atomicStates(machine: AnyStateMachine): Array<[string, AnyStateMachine['root']]> {
  const out: Array<[string, AnyStateMachine['root']]> = [];
  const visit = (node: AnyStateMachine['root'], prefix: string) => {
    for (const [key, child] of Object.entries(node.states)) {
      const path = prefix ? `${prefix}.${key}` : key;
      if (Object.keys(child.states).length === 0) out.push([path, child]);
      else visit(child, path);
    }
  };
  visit(machine.root, '');
  return out;
}

/** Every atomic state's path: what a chart draws and a coverage test expects to see entered. */
export function lifecycleStates(def: LifecycleDefinition): string[] {
  // The initial state, before anything was observed, is never an object's state.
  const initial = leafPath(initialOf(def.machine).value as StateValue);
  return atomicStates(def.machine).map(([path]) => path).filter((p) => p !== initial);
}

/** The atomic states the machine tags `resting` (`complete`, `satisfied`): where objects stay when nothing is to be done. */
export function restingStates(def: LifecycleDefinition): string[] {
  return atomicStates(def.machine).filter(([, node]) => node.tags.includes('resting')).map(([path]) => path);
}
