/**
 * TaintToleration (filter, pre-score, score): a node's NoSchedule and NoExecute taints keep off
 * every pod that does not tolerate them (unresolvable: preemption cannot remove a taint);
 * PreferNoSchedule taints the pod does not tolerate lower the node's score.
 * Matching as established (src/api/node-selection.ts).
 */
import { taintTolerated } from '../../../api/node-selection.js';
import type { ClusterEvent, FilterPlugin, Plugin, PreScorePlugin, ScorePlugin } from '../../framework/interfaces.js';
import type { CycleState } from '../../framework/cycle-state.js';
import type { NodeInfo } from '../../framework/node-info.js';
import { FLAG_HAS_TAINTS, rowOf } from '../../framework/node-table.js';
import { defaultNormalizeScore } from '../../framework/normalize.js';
import type { Taint } from '../../framework/objects.js';
import type { PodInfo } from '../../framework/pod-info.js';
import { success, unresolvable, type Verdict } from '../../framework/status.js';

export const name = 'TaintToleration';
export const events: readonly ClusterEvent[] = [{ resource: 'Node', actions: ['Add', 'Update'] }];

export { taintTolerated, tolerates } from '../../../api/node-selection.js';

/** The established reason: `node(s) had taint {key: value}, that the pod didn't tolerate`. */
export function taintReason(taint: Taint): string {
  return `node(s) had taint {${taint.key ?? ''}: ${taint.value ?? ''}}, that the pod didn't tolerate`;
}

export function fits(pod: PodInfo, node: NodeInfo): Verdict {
  const taints = node.taints;
  if (taints.length === 0) return success();
  const tolerations = pod.pod.spec?.tolerations ?? [];
  for (const taint of taints) {
    if (taint.effect !== 'NoSchedule' && taint.effect !== 'NoExecute') continue;
    if (!taintTolerated(taint, tolerations)) return unresolvable(taintReason(taint));
  }
  return success();
}

/** How many PreferNoSchedule taints the pod does not tolerate (raw score; reversed on normalising). */
export function intolerablePreferNoSchedule(pod: PodInfo, node: NodeInfo): number {
  const taints = node.taints;
  if (taints.length === 0) return 0;
  const tolerations = (pod.pod.spec?.tolerations ?? []).filter((t) => !t.effect || t.effect === 'PreferNoSchedule');
  let n = 0;
  for (const taint of taints) if (taint.effect === 'PreferNoSchedule' && !taintTolerated(taint, tolerations)) n++;
  return n;
}

function untainted(s: CycleState, node: NodeInfo): boolean {
  const row = rowOf(s, node);
  return row >= 0 && (s.table!.flags(row) & FLAG_HAS_TAINTS) === 0;
}

export function factory(): Plugin {
  const plugin: FilterPlugin & PreScorePlugin & ScorePlugin & { events: readonly ClusterEvent[] } = {
    name,
    events,
    // A node whose row says it has no taints passes and scores 0 without being read.
    filter: (s, pod, node) => (untainted(s, node) ? success() : fits(pod, node)),
    preScore: () => success(),
    score: (s, pod, node) => (untainted(s, node) ? 0 : intolerablePreferNoSchedule(pod, node)),
    normalizeScores: (_s, _pod, scores) => defaultNormalizeScore(scores, true),
  };
  return plugin;
}
