/**
 * The established default normalisation of raw scores onto [0, MAX_NODE_SCORE]: scaled by the
 * largest raw score; `reverse` turns "more is worse" counts (untolerated taints, matching pods)
 * into scores. When every raw score is 0, reversed scores are all MAX (nobody is worse).
 */
import { MAX_NODE_SCORE, type NodeScore } from './interfaces.js';

export function defaultNormalizeScore(scores: NodeScore[], reverse: boolean, max = MAX_NODE_SCORE): void {
  let highest = 0;
  for (const s of scores) if (s.score > highest) highest = s.score;
  if (highest === 0) {
    if (reverse) for (const s of scores) s.score = max;
    return;
  }
  for (const s of scores) {
    let v = Math.floor((max * s.score) / highest);
    if (reverse) v = max - v;
    s.score = v;
  }
}
