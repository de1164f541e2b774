/**
 * TaintNodesByCondition (default on): a Node is created with the NoSchedule taint
 * `node.svc.io/not-ready` (unless it has it already), so no pod is scheduled to a node before the
 * node lifecycle controller has seen it Ready and lifted the taint (its NoSchedule pass keeps the
 * condition taints in step with the node's conditions from then on). A cluster that runs without
 * the nodelifecycle controller must disable this plugin, or its nodes stay unschedulable.
 */
import type { Node } from '../../api/generated/kinds.js';
import { TAINT_NODE_NOT_READY } from '../../api/well-known-labels.js';
import type { AdmissionPlugin } from './chain.js';

export function taintNodesByCondition(): AdmissionPlugin {
  return {
    name: 'TaintNodesByCondition',
    sideEffects: 'None',
    handles: (a) => a.def.group === '' && a.def.plural === 'nodes' && a.subresource === '' && a.operation === 'CREATE',
    mutate(a) {
      const node = a.object as Node | undefined;
      if (!node) return;
      const taints = node.spec?.taints ?? [];
      if (taints.some((t) => t.key === TAINT_NODE_NOT_READY && t.effect === 'NoSchedule')) return;
      node.spec = { ...(node.spec ?? {}), taints: [...taints, { key: TAINT_NODE_NOT_READY, effect: 'NoSchedule' }] };
    },
  };
}
