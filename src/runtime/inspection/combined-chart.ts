/**
 * Charts side by side as one: each part becomes a region of one parallel state (its states and
 * transitions re-rooted under the part's key), so `svc charts deployment` draws the Deployment's
 * lifecycle next to the deployment controller's plumbing in one Mermaid diagram or SVG.
 *
 * Contract: pure; the result has the shape chart-model.ts gives machines.
 */
import type { ChartModel, ChartState, ChartTransition } from './chart-model.js';

const under = (key: string, path: string) => (path ? `${key}.${path}` : key);

function reroot(s: ChartState, key: string): ChartState {
  return {
    ...s,
    path: under(key, s.path),
    ...(s.initial !== undefined ? { initial: under(key, s.initial) } : {}),
    children: s.children.map((c) => reroot(c, key)),
  };
}

/**
 * One chart of `parts`, each a region of the parallel state `name` (inside a root that enters it:
 * Mermaid draws parallel regions only inside a composite state).
 */
export function combineCharts(name: string, parts: ReadonlyArray<{ key: string; description: string; model: ChartModel }>): ChartModel {
  if (parts.length === 1) return { ...parts[0]!.model, name };
  const children = parts.map(({ key, description, model }) => ({ ...reroot(model.root, `${name}.${key}`), key, description }));
  const transitions: ChartTransition[] = parts.flatMap(({ key, model }) =>
    model.transitions.map((t) => ({ ...t, source: under(`${name}.${key}`, t.source), targets: t.targets.map((x) => under(`${name}.${key}`, x)) })),
  );
  const empty = { entry: [], exit: [], invokes: [], spawns: [], tags: [] };
  const regions: ChartState = { path: name, key: name, kind: 'parallel', ...empty, children };
  const root: ChartState = { path: '', key: name, kind: 'compound', initial: name, ...empty, children: [regions] };
  const direction = parts.some((p) => p.model.direction === 'LR') ? 'LR' : undefined;
  return {
    name,
    machineId: name,
    root,
    transitions,
    actors: [...new Set(parts.flatMap((p) => p.model.actors))],
    ...(direction ? { direction } : {}),
  };
}
