/**
 * DefaultPodTopologySpread (pre-score, score; the established SelectorSpread): spreads the pods of
 * one Service, ReplicationController, ReplicaSet or StatefulSet over nodes and zones. The score is
 * fewer matching pods on the node is better, blended 1/3 node, 2/3 zone when nodes carry zone
 * labels (zone key: region and zone labels together), as established.
 */
import { labelSelectorFromMap, labelSelectorFromObject, type LabelSelector as ParsedSelector } from '../../../api/labels.js';
import { LABEL_REGION, LABEL_ZONE } from '../../../api/well-known-labels.js';
import type { CycleData, CycleState } from '../../framework/cycle-state.js';
import type { ClusterListers, FrameworkHandle, NodeScore, Plugin, PreScorePlugin, ScorePlugin } from '../../framework/interfaces.js';
import { MAX_NODE_SCORE } from '../../framework/interfaces.js';
import type { NodeInfo } from '../../framework/node-info.js';
import type { Pod } from '../../framework/objects.js';
import type { PodInfo } from '../../framework/pod-info.js';
import type { Snapshot } from '../../framework/snapshot.js';
import { skip, success, type Verdict } from '../../framework/status.js';

export const name = 'DefaultPodTopologySpread';
/** Weight of the zone part of the blended score (established 2/3). */
const ZONE_WEIGHTING = 2 / 3;

/** Selectors of every workload that selects the pod; the pod spreads against pods matching any. */
export function workloadSelectors(pod: Pod, listers: ClusterListers): ParsedSelector[] {
  const ns = pod.metadata.namespace ?? 'default';
  const labels = pod.metadata.labels ?? {};
  const out: ParsedSelector[] = [];
  const add = (sel: ParsedSelector | undefined) => {
    if (sel && !sel.empty && sel.matches(labels)) out.push(sel);
  };
  for (const s of listers.services(ns)) {
    const m = s.spec?.selector;
    if (m && Object.keys(m).length) add(labelSelectorFromMap(m));
  }
  for (const rc of listers.replicationControllers(ns)) {
    const m = rc.spec?.selector;
    if (m && Object.keys(m).length) add(labelSelectorFromMap(m));
  }
  for (const w of [...listers.replicaSets(ns), ...listers.statefulSets(ns)]) {
    const sel = w.spec?.selector;
    if (sel) add(labelSelectorFromObject(sel));
  }
  return out;
}

export function zoneKeyOf(node: NodeInfo): string | undefined {
  const labels = node.node?.metadata.labels;
  if (!labels) return undefined;
  const zone = labels[LABEL_ZONE];
  const region = labels[LABEL_REGION];
  if (zone === undefined && region === undefined) return undefined;
  return `${region ?? ''}:\u0000:${zone ?? ''}`;
}

class SpreadState implements CycleData {
  constructor(readonly selectors: ParsedSelector[], readonly zoneCounts: Map<string, number>) {}
  clone(): SpreadState {
    return this;
  }
}

const KEY = `${name}/preScore`;

export function countMatching(node: NodeInfo, selectors: readonly ParsedSelector[], namespace: string): number {
  let n = 0;
  for (const p of node.pods) {
    const m = p.pod.metadata;
    if (m.namespace !== namespace || m.deletionTimestamp) continue;
    const labels = m.labels ?? {};
    if (selectors.some((s) => s.matches(labels))) n++;
  }
  return n;
}

export function preScore(state: CycleState, pod: PodInfo, snapshot: Snapshot, listers: ClusterListers): Verdict {
  const selectors = workloadSelectors(pod.pod, listers);
  if (selectors.length === 0) return skip();
  const ns = pod.pod.metadata.namespace ?? 'default';
  const zoneCounts = new Map<string, number>();
  for (const n of snapshot.nodeInfoList) {
    const z = zoneKeyOf(n);
    if (z !== undefined) zoneCounts.set(z, (zoneCounts.get(z) ?? 0) + countMatching(n, selectors, ns));
  }
  state.write(KEY, new SpreadState(selectors, zoneCounts));
  return success();
}

export function normalize(state: CycleState, scores: NodeScore[], zoneOf: (node: string) => string | undefined): void {
  const st = state.read<SpreadState>(KEY);
  let maxNode = 0;
  for (const s of scores) if (s.score > maxNode) maxNode = s.score;
  let maxZone = 0;
  const haveZones = st !== undefined && st.zoneCounts.size > 0;
  if (haveZones) for (const c of st.zoneCounts.values()) if (c > maxZone) maxZone = c;
  for (const s of scores) {
    let f = maxNode > 0 ? (MAX_NODE_SCORE * (maxNode - s.score)) / maxNode : MAX_NODE_SCORE;
    const z = haveZones ? zoneOf(s.name) : undefined;
    if (z !== undefined) {
      const zoneScore = maxZone > 0 ? (MAX_NODE_SCORE * (maxZone - (st!.zoneCounts.get(z) ?? 0))) / maxZone : MAX_NODE_SCORE;
      f = f * (1 - ZONE_WEIGHTING) + ZONE_WEIGHTING * zoneScore;
    }
    s.score = Math.floor(f);
  }
}

export function factory(_args: Readonly<Record<string, unknown>>, handle: FrameworkHandle): Plugin {
  const plugin: PreScorePlugin & ScorePlugin = {
    name,
    preScore: (state, pod) => preScore(state, pod, handle.snapshot(), handle.listers),
    score: (state, pod, node) => {
      const st = state.read<SpreadState>(KEY);
      return st ? countMatching(node, st.selectors, pod.pod.metadata.namespace ?? 'default') : 0;
    },
    normalizeScores: (state, _pod, scores) => {
      const snap = handle.snapshot();
      normalize(state, scores, (n) => {
        const ni = snap.get(n);
        return ni ? zoneKeyOf(ni) : undefined;
      });
    },
  };
  return plugin;
}
