/**
 * NodePreferAvoidPods (score): a node annotated `scheduler.alpha.svc.io/preferAvoidPods` with a
 * ReplicationController's or ReplicaSet's uid scores 0 for that controller's pods, every other
 * node 100 (its default weight, 10000, makes it decisive), as established.
 */
import { ANNOTATION_PREFER_AVOID_PODS } from '../../../api/well-known-labels.js';
import type { Plugin, ScorePlugin } from '../../framework/interfaces.js';
import { MAX_NODE_SCORE } from '../../framework/interfaces.js';
import type { NodeInfo } from '../../framework/node-info.js';
import type { PodInfo } from '../../framework/pod-info.js';

export const name = 'NodePreferAvoidPods';

const parsed = new WeakMap<object, ReadonlySet<string>>();

/** Controller uids the node asks to avoid (annotation parsed once per node object). */
export function avoidedControllers(node: NodeInfo): ReadonlySet<string> {
  const n = node.node;
  if (!n) return new Set();
  const cached = parsed.get(n);
  if (cached) return cached;
  const out = new Set<string>();
  const raw = n.metadata.annotations?.[ANNOTATION_PREFER_AVOID_PODS];
  if (raw) {
    try {
      const v = JSON.parse(raw) as { preferAvoidPods?: { podSignature?: { podController?: { kind?: string; uid?: string } } }[] };
      for (const e of v.preferAvoidPods ?? []) {
        const c = e.podSignature?.podController;
        if (c?.uid && (c.kind === 'ReplicationController' || c.kind === 'ReplicaSet')) out.add(c.uid);
      }
    } catch {
      // A malformed annotation avoids nothing.
    }
  }
  parsed.set(n, out);
  return out;
}

export function score(pod: PodInfo, node: NodeInfo): number {
  const owner = pod.pod.metadata.ownerReferences?.find((r) => r.controller);
  if (!owner || (owner.kind !== 'ReplicationController' && owner.kind !== 'ReplicaSet')) return MAX_NODE_SCORE;
  return avoidedControllers(node).has(owner.uid) ? 0 : MAX_NODE_SCORE;
}

export function factory(): Plugin {
  const plugin: ScorePlugin = { name, score: (_s, pod, node) => score(pod, node) };
  return plugin;
}
