/**
 * NodeAffinity (pre-filter, filter, pre-score, score): the pod's `nodeSelector` (every label must
 * match) and its required node affinity (one term must match) decide which nodes it may use; its
 * preferred terms' weights add up to the node's score (normalised 0-100). Matchers are compiled
 * once per pod and kept beside the pod's info.
 */
import type { ClusterEvent, FilterPlugin, Plugin, PreFilterPlugin, PreScorePlugin, ScorePlugin } from '../../framework/interfaces.js';
import type { NodeInfo } from '../../framework/node-info.js';
import { compileTerm, compileTerms, type NodeMatcher } from '../../../api/node-selection.js';
import { defaultNormalizeScore } from '../../framework/normalize.js';
import type { Node } from '../../framework/objects.js';
import type { PodInfo } from '../../framework/pod-info.js';
import { skip, success, unresolvable, type Verdict } from '../../framework/status.js';

export const name = 'NodeAffinity';
export const REASON = "node(s) didn't match node selector";
export const events: readonly ClusterEvent[] = [{ resource: 'Node', actions: ['Add', 'Update'] }];

interface CompiledAffinity {
  /** False when the pod has no nodeSelector and no required terms: every node passes. */
  constrained: boolean;
  required: NodeMatcher;
  preferred: { weight: number; match: NodeMatcher }[];
}

const compiled = new WeakMap<PodInfo, CompiledAffinity>();

/** The pod's node constraints, compiled once per PodInfo. */
export function affinityOf(pod: PodInfo): CompiledAffinity {
  let c = compiled.get(pod);
  if (c) return c;
  const selector = pod.pod.spec?.nodeSelector ?? {};
  const selectorEntries = Object.entries(selector);
  const nodeAffinity = pod.pod.spec?.affinity?.nodeAffinity;
  const requiredTerms = nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  const terms = requiredTerms ? compileTerms(requiredTerms) : undefined;
  const required: NodeMatcher = (n: Node) => {
    const labels = n.metadata.labels ?? {};
    for (const [k, v] of selectorEntries) if (labels[k] !== v) return false;
    return terms ? terms(n) : true;
  };
  const preferred = (nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? [])
    .filter((p) => (p.weight ?? 0) > 0 && p.preference)
    .map((p) => ({ weight: p.weight ?? 0, match: compileTerm(p.preference!) }));
  c = { constrained: selectorEntries.length > 0 || terms !== undefined, required, preferred };
  compiled.set(pod, c);
  return c;
}

export function fits(pod: PodInfo, node: NodeInfo): Verdict {
  if (!node.node) return unresolvable('node(s) not found');
  return affinityOf(pod).required(node.node) ? success() : unresolvable(REASON);
}

/** The sum of the weights of the preferred terms the node matches. */
export function score(pod: PodInfo, node: NodeInfo): number {
  if (!node.node) return 0;
  let total = 0;
  for (const p of affinityOf(pod).preferred) if (p.match(node.node)) total += p.weight;
  return total;
}

export function factory(): Plugin {
  const plugin: PreFilterPlugin & FilterPlugin & PreScorePlugin & ScorePlugin & { events: readonly ClusterEvent[] } = {
    name,
    events,
    // Nothing to check on any node: the filter is skipped for this pod, as established.
    preFilter: (_s, pod) => ({ verdict: affinityOf(pod).constrained ? success() : skip() }),
    filter: (_s, pod, node) => fits(pod, node),
    preScore: (state, pod) => {
      if (affinityOf(pod).preferred.length === 0) state.skipScore.add(name);
      return success();
    },
    score: (_s, pod, node) => score(pod, node),
    normalizeScores: (_s, _pod, scores) => defaultNormalizeScore(scores, false),
  };
  return plugin;
}
