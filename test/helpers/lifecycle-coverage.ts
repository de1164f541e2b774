// A controller's lifecycle chart against what its reconcile really did in a test: every state the
// chart draws was entered at least once, and no state was entered that the chart does not draw.
import * as assert from 'uvu/assert';
import { lifecycleStates, type LifecycleDefinition } from '../../src/runtime/lifecycle.js';
import type { RunningController } from '../../src/runtime/define-controller.js';

export function assertLifecycleCovered(controllers: readonly RunningController[], def: LifecycleDefinition): void {
  const running = controllers.find((c) => c.name === def.controller);
  assert.ok(running, `the ${def.controller} controller is not running`);
  const tracker = running.activity.lifecycle;
  assert.ok(tracker, `the ${def.controller} controller tracks no lifecycle`);
  assert.is(tracker.definition, def, `the ${def.controller} controller tracks another lifecycle`);
  assertStatesEntered(def, tracker.entered().keys());
}

/** The same check over the states a tracker says were entered (e.g. a controller manager process's /debug/machines `lifecycle.entered`). */
export function assertStatesEntered(def: LifecycleDefinition, entered: Iterable<string>): void {
  const seen = new Set(entered);
  const drawn = lifecycleStates(def);
  const missing = drawn.filter((s) => !seen.has(s));
  const undrawn = [...seen].filter((s) => !drawn.includes(s));
  assert.equal(missing, [], `states of the ${def.controller} lifecycle chart never entered in this test: ${missing.join(', ')}`);
  assert.equal(undrawn, [], `states entered that the chart does not draw: ${undrawn.join(', ')}`);
}

/** `lifecycle.entered` of controller `name` in a /debug/machines snapshot (a process's, fetched as JSON). */
export function enteredIn(snapshot: { actors: Array<{ id: string; live?: Record<string, unknown> }> }, name: string): string[] {
  const actor = snapshot.actors.find((a) => a.id === name && a.live?.['lifecycle']);
  assert.ok(actor, `no ${name} actor with lifecycle facts in /debug/machines`);
  return Object.keys((actor.live!['lifecycle'] as { entered: Record<string, number> }).entered);
}
