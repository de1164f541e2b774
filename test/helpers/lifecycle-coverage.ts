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
  const entered = tracker.entered();
  const drawn = lifecycleStates(def);
  const missing = drawn.filter((s) => !entered.has(s));
  const undrawn = [...entered.keys()].filter((s) => !drawn.includes(s));
  assert.equal(missing, [], `states of the ${def.controller} lifecycle chart never entered in this test: ${missing.join(', ')}`);
  assert.equal(undrawn, [], `states entered that the chart does not draw: ${undrawn.join(', ')}`);
}
