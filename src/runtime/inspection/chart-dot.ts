/**
 * A chart model as Graphviz DOT: compound and parallel states are clusters, initial states are
 * entered from a dot, final states have a double border. Every state's element carries
 * `id="state-<path>"` and `class="state state-<kind>"` in the SVG Graphviz makes of it, so a page
 * can highlight the current state. Transitions defined on a state that contains their target
 * (e.g. a machine-wide `on: { STOP: '.stopped' }`) start from an "any state" marker in it.
 */
import { chartStates, stateElementId, type ChartModel, type ChartState, type ChartTransition } from './chart-model.js';

const q = (s: string) => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;
const nodeName = (path: string) => q(`s:${path}`);
const anchorName = (path: string) => q(`init:${path}`);
const anyName = (path: string) => q(`any:${path}`);
const clusterName = (path: string) => q(`cluster_${path || 'root'}`);

/** The lines under a state's name: its description, what it invokes, spawns and does on entry/exit. */
export function stateDetails(s: ChartState): string[] {
  const lines: string[] = s.description ? [s.description] : [];
  for (const i of s.invokes) lines.push(`invoke ${i.src}${i.id && i.id !== i.src ? ` (${i.id})` : ''}`);
  for (const sp of s.spawns) lines.push(`spawn ${sp.src}${sp.id && sp.id !== sp.src ? ` (${sp.id})` : ''}`);
  if (s.entry.length) lines.push(`entry / ${s.entry.join(', ')}`);
  if (s.exit.length) lines.push(`exit / ${s.exit.join(', ')}`);
  return lines;
}

/**
 * An edge's label as drawn: the trigger and its actions on two lines (narrower, so labels of
 * neighbouring edges do not run into each other), padded with a space each side; the whole label
 * stays in the edge's tooltip.
 */
export function edgeLabel(label: string): string {
  const slash = label.indexOf(' / ');
  const lines = slash < 0 ? [label] : [label.slice(0, slash), label.slice(slash + 1)];
  return lines.map((l) => ` ${l} `).join('\n');
}

/** A state's detail line cut at spaces into lines of at most `width` characters (long descriptions make charts very wide). */
export function wrapLine(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  lines.push(line);
  return lines;
}

function isAncestor(ancestor: string, path: string): boolean {
  return ancestor === '' ? path !== '' : path.startsWith(`${ancestor}.`);
}

export function toDot(model: ChartModel): string {
  const states = new Map(chartStates(model).map((s) => [s.path, s]));
  const isCluster = (path: string) => {
    const s = states.get(path);
    return s !== undefined && (s.kind === 'compound' || s.kind === 'parallel') && path !== '';
  };
  // Sources that need an "any state" marker: they define a transition into themselves.
  const anySources = new Set(model.transitions.filter((t) => t.targets.some((x) => isAncestor(t.source, x)) || (t.source === '' && t.targets.length === 0)).map((t) => t.source));
  const out: string[] = [];
  const ind = (d: number) => '  '.repeat(d);
  out.push(`digraph ${q(model.name)} {`);
  // Room between nodes and ranks for edge labels: Graphviz lays a label out as a node of its rank,
  // so nodesep keeps two labels of one rank (two edges between the same states) apart.
  out.push(
    `  graph [compound=true, rankdir=${model.direction ?? 'TB'}, nodesep=0.6, ranksep=0.5, fontname="Helvetica", fontsize=12, labelloc=t, label=${q(`${model.name} (machine ${model.machineId})`)}, id=${q(`machine-${model.machineId}`)}, class="machine"];`,
  );
  out.push('  node [shape=box, style="rounded,filled", fillcolor="white", color="#444444", fontname="Helvetica", fontsize=11];');
  out.push('  edge [fontname="Helvetica", fontsize=9, color="#555555", arrowsize=0.7];');

  const emitChildren = (parent: ChartState, depth: number) => {
    if ((parent.kind === 'compound' && parent.initial !== undefined) || parent.path === '') {
      out.push(`${ind(depth)}${anchorName(parent.path)} [shape=point, width=0.12, label="", fillcolor="black", id=${q(parent.path ? `initial-${parent.path}` : 'initial')}];`);
    } else if (parent.kind === 'parallel' || parent.kind === 'compound') {
      // No initial dot to draw (a parallel state, or a lifecycle's group entered only by name); still an edge anchor.
      out.push(`${ind(depth)}${anchorName(parent.path)} [shape=point, width=0.01, style=invis, label=""];`);
    }
    if (anySources.has(parent.path)) {
      out.push(`${ind(depth)}${anyName(parent.path)} [shape=plaintext, style="", label="any state", fontsize=9, fontcolor="#666666"];`);
    }
    for (const child of parent.children) emitState(child, depth);
  };

  const emitState = (s: ChartState, depth: number) => {
    const details = stateDetails(s);
    const cls = `state state-${s.kind}`;
    const label = [s.key, ...details.flatMap((d) => wrapLine(d, 40))].join('\n');
    if (s.kind === 'compound' || s.kind === 'parallel') {
      out.push(`${ind(depth)}subgraph ${clusterName(s.path)} {`);
      out.push(
        `${ind(depth + 1)}graph [id=${q(stateElementId(s.path))}, class=${q(cls)}, label=${q(label)}, style=${s.kind === 'parallel' ? '"rounded,dashed,filled"' : '"rounded,filled"'}, fillcolor="#f7f7f7", color="#444444", fontsize=11];`,
      );
      emitChildren(s, depth + 1);
      out.push(`${ind(depth)}}`);
      return;
    }
    const periph = s.kind === 'final' ? ', peripheries=2' : '';
    out.push(`${ind(depth)}${nodeName(s.path)} [id=${q(stateElementId(s.path))}, class=${q(cls)}, label=${q(label)}${periph}];`);
  };

  emitChildren(model.root, 1);

  // Initial transitions.
  for (const s of states.values()) {
    if (s.kind !== 'compound' || s.initial === undefined) continue;
    out.push(`  ${anchorName(s.path)} -> ${endpoint(s.initial)}${attrs({ head: s.initial })};`);
  }
  function endpoint(path: string): string {
    return isCluster(path) ? anchorName(path) : nodeName(path);
  }
  function attrs(o: { head?: string; tail?: string; label?: string; style?: string }): string {
    const a: string[] = [];
    if (o.head !== undefined && isCluster(o.head)) a.push(`lhead=${clusterName(o.head)}`);
    if (o.tail !== undefined && isCluster(o.tail)) a.push(`ltail=${clusterName(o.tail)}`);
    if (o.label) a.push(`label=${q(edgeLabel(o.label))}`, `tooltip=${q(o.label)}`);
    if (o.style) a.push(`style=${o.style}`);
    return a.length ? ` [${a.join(', ')}]` : '';
  }
  model.transitions.forEach((t: ChartTransition, i) => {
    const fromAny = anySources.has(t.source) && (t.targets.some((x) => isAncestor(t.source, x)) || t.targets.length === 0);
    const tail = fromAny ? anyName(t.source) : endpoint(t.source);
    const targets = t.targets.length ? t.targets : [t.source];
    for (const target of targets) {
      const head = fromAny && t.targets.length === 0 ? anyName(t.source) : endpoint(target);
      const clipTail = fromAny || target === t.source || isAncestor(t.source, target) || isAncestor(target, t.source) ? undefined : t.source;
      const clipHead = target === t.source || isAncestor(target, t.source) || (fromAny && t.targets.length === 0) ? undefined : target;
      const a = attrs({
        ...(clipHead !== undefined ? { head: clipHead } : {}),
        ...(clipTail !== undefined ? { tail: clipTail } : {}),
        label: t.label,
        ...(t.targets.length === 0 ? { style: 'dashed' } : {}),
      });
      out.push(`  ${tail} -> ${head}${a.replace(/\]$/, `, id=${q(`transition-${i}`)}]`)};`);
    }
  });
  out.push('}');
  return `${out.join('\n')}\n`;
}
