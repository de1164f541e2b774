/**
 * The chart of a lifecycle (../lifecycle.ts): the machine's own chart, laid out left to right, with
 * the root's `observed` transitions numbered in the order they are tried — the number is what makes
 * a decision table readable ("1 [paused]" wins over "7 [newCanGrow]"); the unguarded last one reads
 * "otherwise". Groups of states (`progressing`) are drawn without an initial arrow: xstate wants one,
 * but an object only ever enters a leaf named by the list. Its id is `lifecycle/<controller>`, its file name `lifecycle-<controller>`.
 *
 * Contract: pure; the model has the shape chart-model.ts gives machines, so every format draws it.
 */
import type { LifecycleDefinition } from '../lifecycle.js';
import { chartModel, type ChartModel, type ChartState } from './chart-model.js';

export const lifecycleChartName = (def: LifecycleDefinition) => `lifecycle-${def.controller}`;
export const lifecycleChartId = (def: LifecycleDefinition) => `lifecycle/${def.controller}`;

export function lifecycleChartModel(def: LifecycleDefinition): ChartModel {
  const model = chartModel(def.machine, lifecycleChartName(def));
  let order = 0;
  const transitions = model.transitions.map((t) => {
    if (t.source !== '' || t.trigger.kind !== 'event' || t.trigger.event !== 'observed') return t;
    order++;
    return { ...t, label: t.guard ? `${order} [${t.guard}]` : `${order} otherwise` };
  });
  const withoutInitials = (st: ChartState): ChartState => {
    const { initial: _initial, ...rest } = st;
    return { ...(st.path === '' ? st : rest), children: st.children.map(withoutInitials) };
  };
  return { ...model, machineId: lifecycleChartId(def), root: withoutInitials(model.root), transitions, direction: 'LR' };
}
